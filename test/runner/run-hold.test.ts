import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { holderIsGone, thisProcessHolder, thisProcessWorkerId, workerIsGone } from '../../src/runner/run-hold.ts';

/** The pid of a process that has ended (a child run to its end). */
function endedPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid as number;
}

test('a holder or worker is gone only when its process on this machine has ended', () => {
  const ended = endedPid();
  assert.equal(holderIsGone(thisProcessHolder()), false);
  assert.equal(holderIsGone(`${hostname()} pid ${ended}`), true);
  // Another machine's process cannot be looked at: never taken for gone.
  assert.equal(holderIsGone(`elsewhere-${hostname()} pid ${ended}`), false);
  assert.equal(workerIsGone(thisProcessWorkerId('ab12cd34')), false);
  assert.equal(workerIsGone(`${hostname()} pid ${ended} worker ab12cd34`), true);
  assert.equal(workerIsGone(`elsewhere pid ${ended} worker ab12cd34`), false);
  // A name given with --worker-id says nothing of its process.
  for (const named of ['worker-a', `${hostname()} pid ${ended}`, `${hostname()}-${ended}-ab12cd34`]) assert.equal(workerIsGone(named), false, named);
});
