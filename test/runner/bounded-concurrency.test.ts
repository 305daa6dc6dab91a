import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachWithConcurrency } from '../../src/runner/bounded-concurrency.ts';

/** An async source of `count` items that records how many of its next() calls were waiting at once. */
function watchedSource(count: number): AsyncIterable<number> & { calls: number; mostWaiting: number } {
  let produced = 0;
  let waiting = 0;
  const source = {
    calls: 0,
    mostWaiting: 0,
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<number>> => {
        source.calls += 1;
        waiting += 1;
        source.mostWaiting = Math.max(source.mostWaiting, waiting);
        await new Promise((resolve) => setImmediate(resolve));
        waiting -= 1;
        if (produced === count) return { done: true, value: undefined };
        produced += 1;
        return { done: false, value: produced - 1 };
      },
    }),
  };
  return source;
}

/**
 * Runs the `total` items of `items` at `concurrency`; what ran, in order, and the most at once. Each item is held until
 * the bound is reached or every item has started (a fixed time would let a slow or busy machine end the first items
 * before the last workers start), for at most 1,000 turns of the event loop, so a runner that never reaches the bound
 * fails the test instead of hanging it.
 */
async function runAll(items: Iterable<number> | AsyncIterable<number>, total: number, concurrency: number): Promise<{ order: number[]; most: number }> {
  const order: number[] = [];
  let inFlight = 0;
  let most = 0;
  await forEachWithConcurrency(items, concurrency, async (item, index) => {
    assert.equal(item, index, 'each item comes with its own index');
    order.push(item);
    inFlight += 1;
    most = Math.max(most, inFlight);
    for (let turn = 0; turn < 1_000 && inFlight < concurrency && order.length < total; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
  });
  return { order, most };
}

const upTo = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

test('every kind of source runs each item once, in order, with exactly the concurrency in flight when it has items for it', async () => {
  function* plain(): Generator<number> {
    yield* upTo(40);
  }
  async function* asynchronous(): AsyncGenerator<number> {
    yield* upTo(40);
  }
  for (const [name, items] of [['array', upTo(40)], ['generator', plain()], ['async generator', asynchronous()], ['async iterable', watchedSource(40)]] as const) {
    const { order, most } = await runAll(items, 40, 7);
    assert.deepEqual(order, upTo(40), name);
    assert.equal(most, 7, `${name}: the bound is reached and kept`);
  }
  const { order, most } = await runAll([], 0, 7);
  assert.deepEqual(order, []);
  assert.equal(most, 0);
});

test('a source shorter than the concurrency is asked one item at a time, and only as often as it has items', async () => {
  // Each worker holding a next() of its own made a run's time grow with the square of its concurrency (an async
  // generator walks its list of waiting requests for each new one): 50 tasks at --concurrency 100000 took 98 s.
  const source = watchedSource(50);
  const { order, most } = await runAll(source, 50, 100_000);
  assert.deepEqual(order, upTo(50));
  assert.equal(most, 50, 'every item is in flight at once');
  assert.equal(source.mostWaiting, 1, 'never more than one next() waiting on the source');
  assert.ok(source.calls <= 52, `asked ${source.calls} times for 50 items, not once per allowed worker`);
});

test('the first failure, of the work or of the source, stops new items and is thrown once the ones in flight end', async () => {
  const started: number[] = [];
  const ended: number[] = [];
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => { release = resolve; });
  const run = forEachWithConcurrency(upTo(100), 4, async (item) => {
    started.push(item);
    if (item === 2) {
      await new Promise((resolve) => setImmediate(resolve));
      setTimeout(release, 5);
      throw new Error('item 2 broke');
    }
    await gate;
    ended.push(item);
  });
  await assert.rejects(run, /item 2 broke/);
  assert.deepEqual(started, [0, 1, 2, 3], 'nothing is started after the failure');
  assert.deepEqual(ended, [0, 1, 3], 'the failure is thrown only once the ones in flight have ended');
  async function* failing(): AsyncGenerator<number> {
    yield 0;
    throw new Error('source broke');
  }
  await assert.rejects(forEachWithConcurrency(failing(), 1_000, async () => {}), /source broke/);
});

test('shouldStop stops taking items; a stop before the first takes none', async () => {
  const taken: number[] = [];
  await forEachWithConcurrency(upTo(100), 3, async (item) => {
    taken.push(item);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }, () => taken.length >= 10);
  assert.ok(taken.length >= 10 && taken.length <= 12, `took ${taken.length}`);
  assert.deepEqual(taken, upTo(taken.length));
  let called = false;
  await forEachWithConcurrency(upTo(5), 3, async () => { called = true; }, () => true);
  assert.equal(called, false);
});
