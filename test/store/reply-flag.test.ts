/**
 * The PostgreSQL store waits on a shared flag for each reply of its connection thread. A notify meant for the previous
 * request can wake the next wait early (seen in CI as "the PostgreSQL worker answered without a reply" mid team run):
 * the wait must go on until the flag is set.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { waitForReplyFlag } from '../../src/store/postgres/synchronous-postgres.ts';

/** A thread that notifies until the waiter is woken with the flag still 0, then sets the flag after 100 ms. */
const lateNotifier = `
const { workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData.signal);
const pause = new Int32Array(new SharedArrayBuffer(4));
while (Atomics.notify(flag, 0) === 0) Atomics.wait(pause, 0, 0, 2);
Atomics.wait(pause, 0, 0, 100);
Atomics.store(flag, 0, 1);
Atomics.notify(flag, 0);
`;

test('a wake-up with the flag still unset is not a reply: the wait goes on until the flag is set', async () => {
  const signal = new SharedArrayBuffer(4);
  const flag = new Int32Array(signal);
  const worker = new Worker(lateNotifier, { eval: true, workerData: { signal } });
  const replied = waitForReplyFlag(flag, 20_000);
  assert.equal(replied, true);
  assert.equal(Atomics.load(flag, 0), 1, 'returned before the reply was signalled');
  await worker.terminate();
});

test('no reply within the time is a timeout', () => {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const started = performance.now();
  assert.equal(waitForReplyFlag(flag, 50), false);
  assert.ok(performance.now() - started >= 49);
});
