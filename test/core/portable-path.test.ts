import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { portableDataset, resolvePortablePath, sameFile, toPortablePath } from '../../src/core/portable-path.ts';
import { fixturePath } from '../require-data.ts';

/** Runs `use` with $TOOLFORGE_DATA at the hand-written fixtures (the only data root then). */
function withFixtureData<T>(use: () => T): T {
  const saved = process.env.TOOLFORGE_DATA;
  process.env.TOOLFORGE_DATA = fixturePath();
  try {
    return use();
  } finally {
    if (saved === undefined) delete process.env.TOOLFORGE_DATA;
    else process.env.TOOLFORGE_DATA = saved;
  }
}

test('a file inside a data folder is named by its data set and path; one outside by its absolute path', () => {
  withFixtureData(() => {
    const spec = fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');
    assert.equal(toPortablePath(spec), 'shared:wapiibench/openapi/real_world_specs/notes.yaml');
    assert.equal(resolvePortablePath('shared:wapiibench/openapi/real_world_specs/notes.yaml'), spec);
    assert.equal(portableDataset('shared:wapiibench/openapi/real_world_specs/notes.yaml'), 'wapiibench');
    assert.equal(toPortablePath('/elsewhere/notes.yaml'), '/elsewhere/notes.yaml');
    assert.equal(portableDataset('/elsewhere/notes.yaml'), undefined);
  });
});

test('sameFile: a relative path, an absolute path and a portable name of one file are the same file; another file is not', () => {
  withFixtureData(() => {
    const spec = fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');
    const portable = 'shared:wapiibench/openapi/real_world_specs/notes.yaml';
    assert.equal(sameFile(relative(process.cwd(), spec), spec), true);
    assert.equal(sameFile(spec, portable), true);
    assert.equal(sameFile(relative(process.cwd(), spec), portable), true);
    assert.equal(sameFile(join(spec, '..', 'notes.yaml'), spec), true);
    assert.equal(sameFile(spec, fixturePath('wapiibench', 'openapi', 'real_world_specs', 'other.yaml')), false);
    assert.equal(sameFile(portable, 'shared:wapiibench/openapi/notes.yaml'), false);
  });
});
