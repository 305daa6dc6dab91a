import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Knob } from '../../src/suites/knob.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';

const knobs: readonly Knob[] = [
  { type: 'string', name: 'data', description: 'a file', default: null, path: 'file' },
  { type: 'string', name: 'cache', description: 'a folder', default: null, path: 'folder' },
  { type: 'string', name: 'simulator', description: 'not a path', default: 'template' },
  { type: 'string', name: 'store', description: 'a folder the suite creates', default: null, path: 'created-folder' },
];

test('a path knob naming something in the directory passed is kept absolute; other values are as given', () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-knob-'));
  mkdirSync(join(directory, 'cache'));
  writeFileSync(join(directory, 'samples.jsonl'), '');
  assert.deepEqual(resolveKnobs('s', knobs, { data: 'samples.jsonl', cache: 'project/../cache', simulator: 'openai/x' }, { directory }), {
    data: join(directory, 'samples.jsonl'), cache: join(directory, 'cache'), simulator: 'openai/x', store: null,
  });
  // Nothing there: left as given, for the suite to read its own way (nestful: a file of its data set) or to refuse.
  assert.deepEqual(resolveKnobs('s', knobs, { data: 'data_v2/samples.jsonl' }, { directory }), { data: 'data_v2/samples.jsonl', cache: null, simulator: 'template', store: null });
  // Absolute paths, a data set's own file and the defaults stay as they are; without a directory nothing is resolved.
  assert.deepEqual(resolveKnobs('s', knobs, { data: '/data/s.jsonl', cache: 'shared:nestful/cache' }, { directory: '/work/project' }), {
    data: '/data/s.jsonl', cache: 'shared:nestful/cache', simulator: 'template', store: null,
  });
  assert.deepEqual(resolveKnobs('s', knobs, {}, { directory: '/work/project' }), { data: null, cache: null, simulator: 'template', store: null });
  assert.deepEqual(resolveKnobs('s', knobs, { data: 'samples.jsonl' }), { data: 'samples.jsonl', cache: null, simulator: 'template', store: null });
});

test('a folder the suite creates is made absolute from the directory even before it exists; a folder it reads is not', () => {
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-knob-'));
  assert.deepEqual(resolveKnobs('s', knobs, { store: 'runs/cache', cache: 'runs/cache' }, { directory }), {
    data: null, cache: 'runs/cache', simulator: 'template', store: join(directory, 'runs', 'cache'),
  });
  assert.deepEqual(resolveKnobs('s', knobs, { store: '/var/cache/x' }, { directory }).store, '/var/cache/x');
  assert.deepEqual(resolveKnobs('s', knobs, { store: 'runs/cache' }).store, 'runs/cache');
});

test('an empty path knob is refused as an empty string knob is, naming the knob', () => {
  assert.throws(() => resolveKnobs('s', knobs, { data: '' }, { directory: '/work/project' }), /knob 'data' is empty/);
});
