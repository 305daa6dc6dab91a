import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readLinesSync } from '../../src/core/read-lines.ts';
import { readTextFile, readTextFileSync, withoutByteOrderMark } from '../../src/core/read-text-file.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolforge-text-'));
const mark = Buffer.from([0xef, 0xbb, 0xbf]);

test('a byte order mark before the text is dropped; one inside it is content', async () => {
  const path = join(directory, 'marked.json');
  writeFileSync(path, Buffer.concat([mark, Buffer.from('{"a": "\ufeffb"}')]));
  assert.deepEqual(JSON.parse(readTextFileSync(path)), { a: '\ufeffb' });
  assert.deepEqual(JSON.parse(await readTextFile(path)), { a: '\ufeffb' });
  assert.equal(withoutByteOrderMark('\ufeff\ufeffx'), '\ufeffx');
  assert.equal(withoutByteOrderMark(''), '');
});

test('lines read in chunks lose a leading byte order mark, also when the first line is longer than a chunk', () => {
  const long = 'x'.repeat((1 << 20) + 17);
  for (const [name, lines] of [['short', ['{"a": 1}', '{"b": 2}', '']], ['long', [long, 'second', '']]] as const) {
    const path = join(directory, `${name}.jsonl`);
    writeFileSync(path, Buffer.concat([mark, Buffer.from(lines.join('\n'))]));
    assert.deepEqual([...readLinesSync(path)], lines, name);
    writeFileSync(path, lines.join('\n'));
    assert.deepEqual([...readLinesSync(path)], lines, `${name} without a mark`);
  }
  // Only the very first character: a mark starting a later line is that line's content.
  const path = join(directory, 'later.jsonl');
  writeFileSync(path, 'a\n\ufeffb');
  assert.deepEqual([...readLinesSync(path)], ['a', '\ufeffb']);
});
