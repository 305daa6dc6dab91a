/**
 * One episode: a fresh environment, the agent driving the model against it within the task's
 * limits, then the suite's score of the end state. Model faults come back as a termination and a
 * score; a thrown error is infrastructure (the caller retries or records it, never scores it).
 */
import { startEpisodeClock } from '../agents/episode-clock.ts';
import type { EpisodeClock } from '../agents/episode-clock.ts';
import type { Limits } from '../core/limits.ts';
import { createGenericAgent } from '../agents/registry.ts';
import type { AgentSource } from '../agents/spec.ts';
import type { CallRecord } from '../core/call-record.ts';
import type { Environment } from '../core/environment.ts';
import type { EpisodeWarning, RawExchange } from '../core/episode.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { JsonValue } from '../core/json.ts';
import type { Message } from '../core/message.ts';
import type { Mode } from '../core/mode.ts';
import type { Score, ScoreInput } from '../core/score.ts';
import type { Task } from '../core/task.ts';
import type { Termination } from '../core/termination.ts';
import type { Usage } from '../core/usage.ts';
import type { HelperModelSources, HelperModels } from '../models/helper-models.ts';
import { defaultHelperModels } from '../models/helper-models.ts';
import type { EpisodeContext, GenerationSettings, RequestRetry } from '../models/spec.ts';
import type { Sandbox } from '../sandbox/spec.ts';
import type { EpisodeServices, Suite } from '../suites/spec.ts';
import { resolveAppliedTransforms } from '../transforms/registry.ts';
import { createLazySandbox } from './lazy-sandbox.ts';
import { recordCalls } from './recording-environment.ts';
import { recordModel } from './recording-model.ts';

export type EpisodeInput = {
  suite: Suite;
  task: Task;
  /** Trial index, from 0. */
  trial: number;
  mode: Mode;
  /** A model, or an external agent that brings its own loop (AgentSource.createAgent). */
  model: AgentSource;
  settings?: GenerationSettings;
  /** The run's cancellation; the task's time limit is added here. */
  signal?: AbortSignal;
  /** The run's sandbox (the runner owns and disposes it); without one, a code episode makes and disposes its own. */
  sandbox?: () => Sandbox;
  /** Keep the vendor request/response bodies in the record. */
  keepRaw?: boolean;
  /** Overrides the task's `limits.timeLimitMs` (`--episode-timeout`). */
  timeLimitMs?: number;
  /** Every retried model request of the episode (network models only), the helper models' included. */
  onRequestRetry?(retry: RequestRetry): void;
  /** The run's helper models (a suite's LLM simulator or judge); default: defaultHelperModels. */
  helperModels?: HelperModelSources;
};

export type EpisodeResult = {
  termination: Termination;
  messages: Message[];
  usage: Usage;
  score: Score;
  finalState: JsonValue;
  calls: CallRecord[];
  warnings: EpisodeWarning[];
  raw?: RawExchange[];
  /** Model generate calls made (0 when re-scored). */
  modelCalls: number;
};

/** Past the time limit, how long an agent that ignores its signal gets before the episode is abandoned. */
const abandonGraceMs = 5_000;

/**
 * The environment of one episode: the suite's, wrapped by each transform in order. Scorers get
 * this same factory (ScoreInput.createEnvironment) for replays on clean state.
 */
export async function createEpisodeEnvironment(suite: Suite, task: Task, mode: Mode, services?: EpisodeServices): Promise<Environment> {
  let environment = await suite.createEnvironment(task, mode, services);
  for (const { transform, record } of resolveAppliedTransforms(task)) {
    if (transform.wrapEnvironment) environment = transform.wrapEnvironment(environment, record, task);
  }
  return environment;
}

/** What a scorer judges of an episode, as run or as stored. */
export type EpisodeEvidence = Pick<ScoreInput, 'messages' | 'finalState' | 'termination' | 'calls'>;

/**
 * The suite's score of one episode: the same call for a fresh episode and for a stored one (rescore). `models` are the
 * helper models its scorer may call (a judge) and a replay's environment may (a simulator).
 */
export function scoreEpisode(suite: Suite, task: Task, mode: Mode, evidence: EpisodeEvidence, signal?: AbortSignal, models?: HelperModels): Promise<Score> {
  return suite.score({
    task, mode, ...evidence, signal: signal ?? new AbortController().signal, ...(models ? { models } : {}),
    createEnvironment: () => createEpisodeEnvironment(suite, task, mode, models ? { models } : undefined),
  });
}

export async function runEpisode(input: EpisodeInput): Promise<EpisodeResult> {
  const { task } = input;
  const limits = input.timeLimitMs === undefined ? task.limits : { ...task.limits, timeLimitMs: input.timeLimitMs };
  // One clock for the episode's time limit (the agents' budget reads it), stopped while a network model waits on
  // its provider, so a provider outage is never charged to the model.
  const clock = startEpisodeClock(limits.timeLimitMs);
  try {
    return await runEpisodeOnClock(input, limits, clock);
  } finally {
    // Also when the episode's setup throws (a model or agent refusing the task): the clock's timer would otherwise
    // hold the process open for the task's whole time limit after the run has ended.
    clock.dispose();
  }
}

async function runEpisodeOnClock(input: EpisodeInput, limits: Limits, clock: EpisodeClock): Promise<EpisodeResult> {
  const { suite, task, trial, mode } = input;
  const episode: EpisodeContext = { task, trial, mode, requests: { pauseClock: clock.pause, onRetry: (retry) => input.onRequestRetry?.(retry) } };
  let model = input.model.forEpisode(episode);
  // The suite's own models (a simulator, a judge) wait on their providers on the same terms as the model under test.
  const helperModels = input.helperModels?.forEpisode(episode) ?? defaultHelperModels(episode);
  if (input.model.ref.startsWith('builtin/')) {
    // Built-in models read the task's gold: adapters make them speak the transformed interface.
    for (const { transform, record } of resolveAppliedTransforms(task)) if (transform.adaptModel) model = transform.adaptModel(model, record, task);
  }
  const recordedModel = recordModel(model, input.keepRaw ?? false);
  const agent = input.model.createAgent?.(mode) ?? suite.createAgent?.(mode) ?? createGenericAgent(mode);
  const signal = input.signal ?? new AbortController().signal;
  const ownSandbox = input.sandbox ? undefined : createLazySandbox(1);
  const sandbox = input.sandbox ?? (() => (ownSandbox as NonNullable<typeof ownSandbox>).get());
  // An agent that ignores both its budget and the runner's cancellation is abandoned a grace period after the
  // clock runs out (clock time, so a paused wait on a provider does not count).
  let abandonTimer: NodeJS.Timeout | undefined;
  let rejectAbandoned: (error: Error) => void = () => {};
  const abandoned = new Promise<never>((_, reject) => { rejectAbandoned = reject; });
  // Handled by the race below; this keeps a rejection before the race starts from going unhandled.
  abandoned.catch(() => {});
  const startAbandonTimer = (): void => {
    abandonTimer = setTimeout(() => rejectAbandoned(new ToolForgeError('internal',
      `task '${task.id}': the ${agent.id} agent did not stop within ${abandonGraceMs} ms of reaching its ${limits.timeLimitMs} ms limit`,
      { fix: 'this is a bug in the agent or environment (it ignores its abort signal); please report it' })), abandonGraceMs);
  };
  clock.signal.addEventListener('abort', startAbandonTimer, { once: true });
  let environment: Environment | undefined;
  try {
    const recording = recordCalls(await createEpisodeEnvironment(suite, task, mode, { models: helperModels }));
    environment = recording.environment;
    const outcome = await Promise.race([
      agent.run(task, { model: recordedModel.model, environment, limits, settings: input.settings ?? {}, signal, clock, sandbox, emit: () => {} }),
      abandoned,
    ]);
    const finalState = await environment.snapshotState();
    const score = await scoreEpisode(suite, task, mode, {
      messages: outcome.messages, finalState, termination: outcome.termination, calls: recording.calls,
    }, input.signal, helperModels);
    const { record } = recordedModel;
    return {
      termination: outcome.termination, messages: outcome.messages, usage: outcome.usage, score, finalState, calls: recording.calls,
      warnings: record.warnings, ...(input.keepRaw ? { raw: record.raw } : {}), modelCalls: record.calls,
    };
  } finally {
    clock.signal.removeEventListener('abort', startAbandonTimer);
    clearTimeout(abandonTimer);
    clock.dispose();
    await environment?.dispose();
    await ownSandbox?.dispose();
  }
}
