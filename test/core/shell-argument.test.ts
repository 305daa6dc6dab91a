import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { shellArgument, shellCommand } from '../../src/core/shell-argument.ts';

test('safe words stay bare; anything the shell would split, expand or glob is single-quoted', () => {
  assert.equal(shellArgument('results/run-1.db'), 'results/run-1.db');
  assert.equal(shellArgument('data=x.jsonl'), 'data=x.jsonl');
  assert.equal(shellArgument('my results.db'), "'my results.db'");
  assert.equal(shellArgument("it's"), "'it'\\''s'");
  assert.equal(shellArgument(''), "''");
  assert.equal(shellCommand(['run', 'funcgen', '--db', 'a b.db']), "run funcgen --db 'a b.db'");
});

test('sh reads each quoted word back as the exact original', () => {
  const words = ['plain', 'two words', "it's", '$HOME', '`id`', '*', 'tab\there', 'new\nline', '', 'back\\slash', '"double"', '!bang'];
  const echoed = spawnSync('sh', ['-c', `printf '%s\\0' ${shellCommand(words)}`], { encoding: 'utf8' });
  assert.equal(echoed.status, 0, echoed.stderr);
  assert.deepEqual(echoed.stdout.split('\0').slice(0, -1), words);
});
