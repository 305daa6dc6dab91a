/**
 * One episode: a fresh environment, the agent driving the model against it within the task's
 * limits, then the suite's score of the end state. Model faults come back as a termination and a
 * score; a thrown error is infrastructure (the caller retries or records it, never scores it).
 */
import { createGenericAgent } from '../agents/registry.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { Message } from '../core/message.ts';
import type { Mode } from '../core/mode.ts';
import type { Score } from '../core/score.ts';
import type { Task } from '../core/task.ts';
import type { Termination } from '../core/termination.ts';
import type { Usage } from '../core/usage.ts';
import type { GenerationSettings, ModelSource } from '../models/spec.ts';
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
};

export type EpisodeResult = { termination: Termination; messages: Message[]; usage: Usage; score: Score };

/** Past the time limit, how long an agent that ignores its signal gets before the episode is abandoned. */
const abandonGraceMs = 5_000;

export async function runEpisode(input: EpisodeInput): Promise<EpisodeResult> {
  const { suite, task, trial, mode } = input;
  const model = input.model.forEpisode({ task, trial, mode });
  const agent = suite.createAgent?.(mode) ?? createGenericAgent(mode);
  // A TimeoutError abort is read by the agents as 'time-limit'; any other abort as 'cancelled'.
  const timeLimit = AbortSignal.timeout(task.limits.timeLimitMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timeLimit]) : timeLimit;
  const environment = await suite.createEnvironment(task, mode);
  let abandonTimer: NodeJS.Timeout | undefined;
  try {
    const abandoned = new Promise<never>((_, reject) => {
      abandonTimer = setTimeout(() => reject(new ToolForgeError('internal',
        `task '${task.id}': the ${agent.id} agent did not stop within ${task.limits.timeLimitMs + abandonGraceMs} ms of a ${task.limits.timeLimitMs} ms limit`,
        { fix: 'this is a bug in the agent or environment (it ignores its abort signal); please report it' })), task.limits.timeLimitMs + abandonGraceMs);
    });
    const outcome = await Promise.race([
      agent.run(task, { model, environment, limits: task.limits, settings: input.settings ?? {}, signal, emit: () => {} }),
      abandoned,
    ]);
    const finalState = await environment.snapshotState();
    const score = await suite.score({ task, messages: outcome.messages, finalState, termination: outcome.termination, mode });
    return { termination: outcome.termination, messages: outcome.messages, usage: outcome.usage, score };
  } finally {
    clearTimeout(abandonTimer);
    await environment.dispose();
  }
}
