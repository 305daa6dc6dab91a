import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startEpisodeClock } from '../../src/agents/episode-clock.ts';

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

describe('episode clock', () => {
  test('expires with a TimeoutError once the limit has run', async () => {
    const clock = startEpisodeClock(5);
    const reason = await aborted(clock.signal);
    assert.ok(reason instanceof DOMException && reason.name === 'TimeoutError');
  });

  test('a paused clock does not run out, however long the pause; the time before the pause still counts', async () => {
    let nowMs = 0;
    const clock = startEpisodeClock(1000, () => nowMs);
    nowMs = 400;
    const resume = clock.pause();
    nowMs = 100_000;
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(clock.signal.aborted, false);
    // 600 ms were left; charging 599 leaves 1 ms.
    resume(599);
    assert.equal(clock.signal.aborted, false);
    await aborted(clock.signal);
    clock.dispose();
  });

  test('charging the remaining time or more on resume expires the clock at once', () => {
    let nowMs = 0;
    const clock = startEpisodeClock(1000, () => nowMs);
    nowMs = 300;
    const resume = clock.pause();
    resume(700);
    assert.equal(clock.signal.aborted, true);
    assert.equal((clock.signal.reason as DOMException).name, 'TimeoutError');
  });

  test('pauses nest: the clock runs again only when the last one resumes; a resume counts once', () => {
    let nowMs = 0;
    const clock = startEpisodeClock(1000, () => nowMs);
    const first = clock.pause();
    const second = clock.pause();
    first(300);
    first(300);
    nowMs = 5000;
    second(300);
    assert.equal(clock.signal.aborted, false);
    // 400 ms left: one more pause charged 400 expires it.
    clock.pause()(400);
    assert.equal(clock.signal.aborted, true);
  });
});
