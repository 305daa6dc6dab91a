import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileProblem } from '../../src/core/file-problem.ts';
import { temporaryDirectory } from '../e2e/run-cli.ts';

/** What reading `path` throws. */
function readError(path: string): unknown {
  try {
    readFileSync(path);
  } catch (error) {
    return error;
  }
  assert.fail(`${path} was readable`);
}

test('a missing file, a path through a file and a non-file error are said in words', () => {
  const directory = temporaryDirectory();
  writeFileSync(join(directory, 'plain.txt'), 'x');
  assert.equal(fileProblem(join(directory, 'missing.json'), readError(join(directory, 'missing.json'))), 'no such file');
  assert.equal(fileProblem(join(directory, 'plain.txt', 'inner.json'), readError(join(directory, 'plain.txt', 'inner.json'))), 'a part of the path is a file, not a folder');
  assert.equal(fileProblem('x.json', new SyntaxError('Unexpected end of JSON input')), 'Unexpected end of JSON input');
});

test('a folder says so and names the data files it holds, sorted, at most five', () => {
  const directory = temporaryDirectory();
  const empty = join(directory, 'empty');
  mkdirSync(empty);
  assert.equal(fileProblem(empty, readError(empty)), 'it is a folder, not a file (an empty one)');

  const other = join(directory, 'other');
  mkdirSync(join(other, 'sub.json'), { recursive: true });
  writeFileSync(join(other, 'notes.txt'), 'x');
  assert.equal(fileProblem(other, readError(other)), 'it is a folder, not a file (with no JSON, JSONL or YAML files in it)', 'a folder named like a data file is not listed');

  const data = join(directory, 'data');
  mkdirSync(data);
  for (const name of ['G2.json', 'G1.json', 'spec.yaml', 'runs.jsonl', 'README.md']) writeFileSync(join(data, name), '[]');
  assert.equal(fileProblem(data, readError(data)), 'it is a folder, not a file (it holds G1.json, G2.json, runs.jsonl, spec.yaml)');
  for (const name of ['a.yml', 'b.json.gz']) writeFileSync(join(data, name), '[]');
  assert.equal(fileProblem(data, readError(data)), 'it is a folder, not a file (it holds G1.json, G2.json, a.yml, b.json.gz, runs.jsonl and 1 more)');
});
