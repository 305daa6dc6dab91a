/**
 * One episode: a fresh environment, the agent driving the model against it within the task's
 * limits, then the suite's score of the end state. Model faults come back as a termination and a
 * score; a thrown error is infrastructure (the caller retries or records it, never scores it).
 */
import { startEpisodeClock } from '../agents/episode-clock.ts';
import { createGenericAgent } from '../agents/registry.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { Message } from '../core/message.ts';
import type { Mode } from '../core/mode.ts';
import type { Score } from '../core/score.ts';
import type { Task } from '../core/task.ts';
import type { Termination } from '../core/termination.ts';
import type { Usage } from '../core/usage.ts';
import type { GenerationSettings, ModelSource, RequestRetry } from '../models/spec.ts';
import type { Suite } from '../suites/spec.ts';

export type EpisodeInput = {
  suite: Suite;
  task: Task;
  /** Trial index, from 0. */
  trial: number;
  mode: Mode;
  model: ModelSource;
  settings?: GenerationSettings;
  /** The run's cancellation; the task's time limit is added here. */
  signal?: AbortSignal;
  /** Overrides the task's `limits.timeLimitMs` (`--episode-timeout`). */
  timeLimitMs?: number;
  /** Every retried model request of the episode (network models only). */
  onRequestRetry?(retry: RequestRetry): void;
};

export type EpisodeResult = { termination: Termination; messages: Message[]; usage: Usage; score: Score };

/** Past the time limit, how long an agent that ignores its signal gets before the episode is abandoned. */
const abandonGraceMs = 5_000;

export async function runEpisode(input: EpisodeInput): Promise<EpisodeResult> {
  const { suite, task, trial, mode } = input;
  const limits = input.timeLimitMs === undefined ? task.limits : { ...task.limits, timeLimitMs: input.timeLimitMs };
  // One clock for the episode's time limit, stopped while a network model waits on its provider.
  // Its TimeoutError abort is read by the agents as 'time-limit'; any other abort as 'cancelled'.
  const clock = startEpisodeClock(limits.timeLimitMs);
  const model = input.model.forEpisode({
    task, trial, mode, requests: { pauseClock: clock.pause, onRetry: (retry) => input.onRequestRetry?.(retry) },
  });
  const agent = suite.createAgent?.(mode) ?? createGenericAgent(mode);
  const signal = input.signal ? AbortSignal.any([input.signal, clock.signal]) : clock.signal;
  let abandonTimer: NodeJS.Timeout | undefined;
  const startAbandonTimer = (): void => {
    abandonTimer = setTimeout(() => rejectAbandoned(new ToolForgeError('internal',
      `task '${task.id}': the ${agent.id} agent did not stop within ${abandonGraceMs} ms of reaching its ${limits.timeLimitMs} ms limit`,
      { fix: 'this is a bug in the agent or environment (it ignores its abort signal); please report it' })), abandonGraceMs);
  };
  let rejectAbandoned: (error: Error) => void = () => {};
  const abandoned = new Promise<never>((_, reject) => { rejectAbandoned = reject; });
  // Handled by the race below; this keeps a rejection before the race starts from going unhandled.
  abandoned.catch(() => {});
  clock.signal.addEventListener('abort', startAbandonTimer, { once: true });
  try {
    const environment = await suite.createEnvironment(task, mode);
    try {
      const outcome = await Promise.race([
        agent.run(task, { model, environment, limits, settings: input.settings ?? {}, signal, clock, emit: () => {} }),
        abandoned,
      ]);
      const finalState = await environment.snapshotState();
      const score = await suite.score({ task, messages: outcome.messages, finalState, termination: outcome.termination, mode });
      return { termination: outcome.termination, messages: outcome.messages, usage: outcome.usage, score };
    } finally {
      await environment.dispose();
    }
  } finally {
    clock.signal.removeEventListener('abort', startAbandonTimer);
    clearTimeout(abandonTimer);
    clock.dispose();
  }
}
