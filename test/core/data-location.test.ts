import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../require-data.ts';
import { cacheDataDirectory, dataRoots, dataWriteDirectory, locateDataset, missingDataError, repositoryRoot } from '../../src/core/data-location.ts';
import { ConfigError } from '../../src/core/errors.ts';

describe('data location', () => {
  test('$TOOLFORGE_DATA is the only root when set; $TOOLFORGE_SHARED_DATA is its alias; it wins over the alias', () => {
    assert.deepEqual(dataRoots({ TOOLFORGE_DATA: '/data/a', TOOLFORGE_SHARED_DATA: '/data/b' }), [{ type: 'variable', variable: 'TOOLFORGE_DATA', path: '/data/a' }]);
    assert.deepEqual(dataRoots({ TOOLFORGE_SHARED_DATA: '/data/b' }), [{ type: 'variable', variable: 'TOOLFORGE_SHARED_DATA', path: '/data/b' }]);
    assert.equal(dataWriteDirectory({ TOOLFORGE_DATA: '/data/a' }), '/data/a');
  });

  test('otherwise ../shared/data beside the repository, then the XDG cache', () => {
    assert.deepEqual(dataRoots({ HOME: '/home/u', TOOLFORGE_DATA: '' }), [
      { type: 'beside-repository', path: join(repositoryRoot, '..', 'shared', 'data') },
      { type: 'cache', path: '/home/u/.cache/toolforge/data' },
    ]);
    assert.equal(cacheDataDirectory({ HOME: '/home/u', XDG_CACHE_HOME: '/var/cache/u' }), '/var/cache/u/toolforge/data');
    // The XDG spec says a relative path is invalid and must be ignored.
    assert.equal(cacheDataDirectory({ HOME: '/home/u', XDG_CACHE_HOME: 'relative/cache' }), '/home/u/.cache/toolforge/data');
    assert.equal(dataWriteDirectory({ HOME: '/home/u' }), '/home/u/.cache/toolforge/data');
  });

  test('each data set is located on its own; an absent one is undefined', () => {
    const found = locateDataset('nestful', { TOOLFORGE_DATA: fixturePath() });
    assert.deepEqual(found, { directory: fixturePath('nestful'), root: { type: 'variable', variable: 'TOOLFORGE_DATA', path: fixturePath() } });
    assert.equal(locateDataset('nestful', { TOOLFORGE_DATA: mkdtempSync(join(tmpdir(), 'no-data-')) }), undefined);
  });

  test('the missing-data error says where it looked and which command gets the data', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-data-'));
    const error = missingDataError('wapiibench', "suite 'webapi'", { alternative: '--set spec=<file>', env: { TOOLFORGE_DATA: empty } });
    assert.ok(error instanceof ConfigError);
    assert.equal(error.code, 'data.missing');
    assert.match(error.message, new RegExp(`looked in ${join(empty, 'wapiibench')}`));
    assert.equal(error.fix, `run \`toolforge data fetch wapiibench\` (downloads it into ${empty}), or set $TOOLFORGE_DATA to a folder holding wapiibench/; or --set spec=<file>`);
  });
});
