import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ConfigError } from '../../src/core/errors.ts';
import { jsonListFileItems, startsWithJsonList } from '../../src/core/json-list-file.ts';
import { temporaryDirectory } from '../e2e/run-cli.ts';

class NotAList extends Error {}
class Unreadable extends Error {}
const errors = { notAList: (reason: string) => new NotAList(reason), unreadable: (error: unknown) => new Unreadable(String(error)) };

test('a JSON list file: its form from its first character, its items with their positions, errors in the caller\'s words', () => {
  const directory = temporaryDirectory();
  const write = (name: string, text: string | Buffer): string => {
    writeFileSync(join(directory, name), text);
    return join(directory, name);
  };
  const list = write('list.json', '\uFEFF \n [{"a": "x,]"}, 2 ,\n"three"]');
  assert.equal(startsWithJsonList(list, errors), true);
  assert.deepEqual([...jsonListFileItems(list, errors)], [{ index: 0, text: '{"a": "x,]"}' }, { index: 1, text: '2' }, { index: 2, text: '"three"' }]);
  assert.equal(startsWithJsonList(write('object.json', ' {"samples": []}'), errors), false);
  assert.equal(startsWithJsonList(write('empty.json', ''), errors), false);

  const open = jsonListFileItems(write('open.json', '[1, 2'), errors);
  assert.deepEqual(open.next().value, { index: 0, text: '1' });
  assert.throws(() => open.next(), (error: unknown) => error instanceof NotAList && /not closed/.test(error.message));
  assert.throws(() => [...jsonListFileItems(write('after.json', '[1] 2'), errors)], NotAList);
  assert.throws(() => startsWithJsonList(join(directory, 'missing.json'), errors), (error: unknown) => error instanceof Unreadable && /ENOENT/.test(error.message));
  assert.throws(() => [...jsonListFileItems(join(directory, 'missing.json'), errors)], Unreadable);
  // A compressed file says so itself, whoever reads it.
  assert.throws(() => startsWithJsonList(write('list.json.gz', gzipSync('[1]')), errors), (error: unknown) => error instanceof ConfigError && /gzip-compressed/.test(error.message));
});
