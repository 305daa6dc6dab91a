import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { linkAbortSignals } from '../../src/core/linked-abort-signal.ts';

test('aborts with the reason of the source that aborted, then lets go of every source', () => {
  const run = new AbortController();
  const clock = new AbortController();
  const linked = linkAbortSignals([run.signal, clock.signal]);
  assert.equal(getEventListeners(run.signal, 'abort').length, 1);
  clock.abort(new Error('time'));
  assert.equal(linked.signal.aborted, true);
  assert.equal((linked.signal.reason as Error).message, 'time');
  assert.equal(getEventListeners(run.signal, 'abort').length, 0);
  assert.equal(getEventListeners(clock.signal, 'abort').length, 0);
});

test('an already aborted source aborts it at once and leaves no listener', () => {
  const run = new AbortController();
  const stopped = AbortSignal.abort('stopped');
  const linked = linkAbortSignals([run.signal, stopped]);
  assert.equal(linked.signal.reason, 'stopped');
  assert.equal(getEventListeners(run.signal, 'abort').length, 0);
});

test('a long-lived source carries one listener for all its followers, and unlink releases it: 10,000 episodes leave nothing on the run signal, and no listener warning', async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => { warnings.push(warning.message); };
  process.on('warning', onWarning);
  try {
    const run = new AbortController();
    const inFlight = Array.from({ length: 300 }, () => linkAbortSignals([run.signal, new AbortController().signal]));
    // One listener however many follow it: Node walks a signal's listeners on every add and remove.
    assert.equal(getEventListeners(run.signal, 'abort').length, 1);
    inFlight[150].unlink();
    assert.equal(getEventListeners(run.signal, 'abort').length, 1, 'the others still follow it');
    for (const linked of inFlight) linked.unlink();
    for (let episode = 0; episode < 10_000; episode += 1) linkAbortSignals([run.signal]).unlink();
    assert.equal(getEventListeners(run.signal, 'abort').length, 0);
    run.abort('cancelled');
    assert.equal(inFlight[0].signal.aborted, false, 'an unlinked signal no longer follows its sources');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings.filter((message) => message.includes('listeners')), []);
  } finally {
    process.off('warning', onWarning);
  }
});

test('every signal following a source aborts with its reason, in the order they linked, and lets go of its other sources', () => {
  const run = new AbortController();
  const clocks = Array.from({ length: 5 }, () => new AbortController());
  const order: number[] = [];
  const linked = clocks.map((clock, index) => {
    const each = linkAbortSignals([run.signal, clock.signal]);
    each.signal.addEventListener('abort', () => order.push(index));
    return each;
  });
  linked[2].unlink();
  clocks[3].abort('time');
  assert.equal(linked[3].signal.reason, 'time');
  run.abort('cancelled');
  assert.deepEqual(order, [3, 0, 1, 4]);
  assert.equal(linked[2].signal.aborted, false, 'unlinked before the abort');
  for (const index of [0, 1, 4]) assert.equal(linked[index].signal.reason, 'cancelled');
  for (const clock of clocks) assert.equal(getEventListeners(clock.signal, 'abort').length, 0);
  assert.equal(getEventListeners(run.signal, 'abort').length, 0);
  // A link made after the source aborted aborts at once.
  assert.equal(linkAbortSignals([new AbortController().signal, run.signal]).signal.reason, 'cancelled');
});
