import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { checkGeneratedTask } from './generated-task-check.ts';
import { fewerTasksThanCount, streamUncheckedTasks, suiteTaskStream } from './stream-unchecked-tasks.ts';
import type { GenerateTasksRequest, Suite } from '../suites/spec.ts';
import type { ParaphraseCache } from '../transforms/perturb/model-paraphrase.ts';
import { withResponseCache } from '../models/response-cache.ts';
import { applyTransformsPrepared } from '../transforms/registry.ts';
import type { TransformRequest } from '../transforms/spec.ts';
import { forEachWithConcurrency } from './bounded-concurrency.ts';
import { resolveModelSource } from './resolve-model-source.ts';
import type { LazySandbox } from './lazy-sandbox.ts';
import { checkExpected, checkTaskShape } from './store-tasks.ts';
import { createLazySandbox } from './lazy-sandbox.ts';
import { episodeMode } from './episode-mode.ts';
import { runEpisode } from './run-episode.ts';
import type { ModelSource } from '../models/spec.ts';

export type GenerateTasksOptions = GenerateTasksRequest & {
  /** Transforms applied in order to every generated task (`--transform`); the oracle check runs on the result. */
  transforms?: readonly TransformRequest[];
  /**
   * Run builtin/oracle on every generated task and refuse the batch if one is not solved (default true). Tasks a
   * suite imports from a data set (`Suite.importsTasks`), unchanged by any transform, are not: their gold is the data's.
   */
  validate?: boolean;
  /** Oracle episodes in flight during validation (default 2). */
  concurrency?: number;
  /**
   * Where the `phrasingModel`'s answers are kept: `perturb:paraphrase`'s paraphrases, and the suite's own phrasing
   * (`--set phrasing=model`), so a rerun, or a command stopped part way and started again, asks the model only for
   * what it has not answered (default: in memory for paraphrases, none for the suite's phrasing).
   */
  paraphraseCache?: ParaphraseCache;
  /** Start at this index of the suite's task stream: the tasks before it are not made (a suite's `generate` still makes them). */
  from?: number;
};

/**
 * Generates tasks and checks them before they are handed out: each is a well-formed Task of this
 * suite with a unique id, and (unless `validate: false`, or the suite imported it unchanged from a data set)
 * builtin/oracle solves it through the same episode path a real model takes.
 */
export async function generateTasks(suite: Suite, options: GenerateTasksOptions): Promise<Task[]> {
  const tasks: Task[] = [];
  for await (const task of streamGeneratedTasks(suite, options)) tasks.push(task);
  return tasks;
}

/** What a caller of the library passes is checked here, where the CLI's parsers do not reach. */
export function checkGenerationCall(suite: Suite, options: GenerateTasksOptions): void {
  if (typeof suite !== 'object' || suite === null || typeof suite.id !== 'string' || !Array.isArray(suite.knobs)) {
    throw new ConfigError('config.invalid', 'generate: the first argument must be a suite', { fix: "pass getSuite('<id>'), e.g. generateTasks(getSuite('funcgen'), { seed: 0, count: 10, params })" });
  }
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('config.invalid', 'generate: no options given', { fix: `pass { seed, count, params }, e.g. { seed: 0, count: 10, params: resolveKnobs('${suite.id}', suite.knobs, {}) }` });
  }
  if (typeof options.params !== 'object' || options.params === null || Array.isArray(options.params)) {
    throw new ConfigError('config.invalid', 'generate: params must be the knob values, an object', { fix: `pass params: resolveKnobs('${suite.id}', suite.knobs, {}) (its defaults), or with the values you set` });
  }
  const { seed, count, from = 0 } = options;
  if (!Number.isSafeInteger(seed)) {
    throw new ConfigError('config.invalid', `generate: seed must be a whole number within ±${Number.MAX_SAFE_INTEGER}, got ${seed}`, { fix: 'pass seed as a whole number, e.g. 7' });
  }
  for (const [field, value, least] of [['count', count, 1], ['from', from, 0]] as const) {
    if (value === undefined || (Number.isSafeInteger(value) && value >= least)) continue;
    throw new ConfigError('config.invalid', `generate: ${field} must be a whole number from ${least} to ${Number.MAX_SAFE_INTEGER}, got ${value}`, {
      fix: `pass ${field} as a whole number >= ${least}`,
    });
  }
}

/**
 * Tasks transformed and oracle-validated per batch while streaming: memory holds one batch, not the set. A transform
 * that asks a model (perturb:paraphrase) prepares a batch's requests together, so transformed batches stay large;
 * tasks only solved by the oracle go a few at a time, since a batch of large tasks outlives V8's young-generation
 * collections and is copied and promoted by each (10,000 funcgen tasks through `generate`: 4.2 s in batches of 64,
 * 3.7 s in batches of 8, and ~80 MB less peak RSS).
 */
const transformBatchSize = 64;
const oracleBatchSize = 8;
/**
 * generateTasks as a stream: the suite's tasks (its `streamTasks` when it has one, else its `generate`) are
 * transformed, checked and validated a batch at a time and handed on in order, so a run of 100,000 imported or
 * generated tasks never holds them all. A failing check throws when its batch is reached.
 */
export async function* streamGeneratedTasks(suite: Suite, options: GenerateTasksOptions): AsyncGenerator<Task> {
  checkGenerationCall(suite, options);
  const { validate = true, concurrency = 2, transforms = [], paraphraseCache, from = 0, ...request } = options;
  const resources = {
    ...(request.phrasingModel ? { phrasingModel: request.phrasingModel } : {}), ...(paraphraseCache ? { paraphraseCache } : {}), ...(request.signal ? { signal: request.signal } : {}),
  };
  if (request.phrasingModel && paraphraseCache) {
    // Every answer kept, whatever its temperature: the same request makes the same task again.
    request.phrasingModel = withResponseCache(request.phrasingModel, { storage: paraphraseCache, policy: 'all' });
  }
  // A data set's tasks, unchanged, carry its gold: checked for shape, not solved again (Suite.importsTasks). A transform
  // is our code, so transformed imports are solved like generated tasks.
  const importedAsIs = transforms.length === 0 && (suite.importsTasks?.(request.params) ?? false);
  const oracle = validate && !importedAsIs ? oracleOf(suite) : undefined;
  if (oracle === undefined && transforms.length === 0) {
    yield* streamUncheckedTasks(suite, request, from);
    return;
  }
  const source = suiteTaskStream(suite, request, from);
  const seen = new Set<string>();
  const sandbox = createLazySandbox(Math.min(concurrency, 2));
  const fix = `this is a bug in suite ${suite.id}: please report it with the seed and --set values`;
  let generated = from;
  let batch: Task[] = [];
  const batchSize = transforms.length > 0 ? transformBatchSize : oracleBatchSize;
  const check = async (): Promise<Task[]> => {
    // Transforms apply a batch at a time: one that asks a model first (perturb:paraphrase) prepares the batch.
    const checked = transforms.length > 0 ? await applyTransformsPrepared(batch, transforms, request.seed, resources) : batch;
    batch = [];
    for (const task of checked) checkGeneratedTask(suite, task, seen);
    if (oracle) await validateEach(suite, checked, concurrency, request.signal, oracle, sandbox, fix);
    // A turn of the event loop per batch: built-in oracles never wait on I/O, and without it timers, Ctrl-C and
    // the finalizers that release each episode's AbortSignal.any bookkeeping would not run until the stream ends.
    await yieldToEventLoop();
    return checked;
  };
  try {
    for await (const generatedTask of await source) {
      generated += 1;
      batch.push(generatedTask);
      if (batch.length === batchSize) yield* await check();
      if (request.signal?.aborted) return;
    }
    yield* await check();
  } finally {
    // The consumer may hold this generator for the whole run: the ids it checked need not live that long.
    seen.clear();
    await sandbox.dispose();
  }
  if (request.count !== undefined && generated < request.count && !request.signal?.aborted) throw fewerTasksThanCount(suite, request, generated);
}

export type ValidateTaskStreamOptions = {
  /** What the tasks are, as the user named it (the --tasks path): named in the fix. */
  source: string;
  signal?: AbortSignal;
  concurrency?: number;
  /** The line of `source` a task id was read from (streamTasksFile's `lines`), so a refused task is named by it. */
  lineOf?: (taskId: string) => number | undefined;
};

/**
 * The line a task was read from; a task derived by --transform (`<id>~<transform>`, once per transform) is on its
 * source task's line.
 */
function sourceLine(taskId: string, lineOf: (taskId: string) => number | undefined): number | undefined {
  for (let id = taskId; ;) {
    const line = lineOf(id);
    if (line !== undefined) return line;
    const cut = id.lastIndexOf('~');
    if (cut <= 0) return undefined;
    id = id.slice(0, cut);
  }
}

/**
 * Tasks read from a file, solved by builtin/oracle a batch at a time as they stream past, as generated tasks are: a
 * task changed since `toolforge generate` wrote it (or made by hand) whose ground truth its own tools do not give is
 * refused before a model is scored against it. A data set's tasks, unchanged, carry the data set's gold and pass on.
 */
export async function* validateTaskStream(
  suite: Suite, tasks: Iterable<Task> | AsyncIterable<Task>, options: ValidateTaskStreamOptions,
): AsyncGenerator<Task> {
  const oracle = oracleOf(suite);
  // A task of a file is named by its line too: the user opens the file there.
  const where = (task: Task): string => {
    const line = options.lineOf === undefined ? undefined : sourceLine(task.id, options.lineOf);
    return line === undefined ? '' : `${options.source}:${line}: `;
  };
  const sandbox = createLazySandbox(Math.min(options.concurrency ?? 2, 2));
  const fix = `its ground truth is not what its own tools give (it was changed after 'toolforge generate ${suite.id}' wrote it, or made by hand): `
    + `generate it again (the same --seed and --set), correct it, or pass --no-validate to run ${options.source} as it is`;
  let batch: Task[] = [];
  const check = async (): Promise<Task[]> => {
    const checked = batch;
    batch = [];
    const solvable = checked.filter((task) => !(suite.importsTasks?.(task.params) ?? false));
    await validateEach(suite, solvable, options.concurrency ?? 2, options.signal, oracle, sandbox, fix, where);
    return checked;
  };
  let ordinal = 0;
  try {
    for await (const task of tasks) {
      // The shape and the ground truth's own consistency first: their errors name the field, not an oracle failure.
      checkTaskShape(task, ordinal);
      checkExpected(suite, task);
      ordinal += 1;
      batch.push(task);
      if (batch.length === oracleBatchSize) yield* await check();
      if (options.signal?.aborted) return;
    }
    yield* await check();
  } finally {
    await sandbox.dispose();
  }
}

function oracleOf(suite: Suite): ModelSource {
  if (!Object.hasOwn(suite.builtinModels, 'oracle')) {
    throw new ToolForgeError('internal', `suite '${suite.id}' has no builtin/oracle, so its tasks cannot be validated`, {
      fix: `add an oracle to suite ${suite.id}, or generate with validation off`,
    });
  }
  return resolveModelSource(suite, 'builtin/oracle');
}

async function validateEach(
  suite: Suite, tasks: readonly Task[], concurrency: number, signal: AbortSignal | undefined, oracle: ModelSource, sandbox: LazySandbox, fix: string,
  where: (task: Task) => string = () => '',
): Promise<void> {
  await forEachWithConcurrency(tasks, concurrency, async (task) => {
    let result;
    try {
      result = await runEpisode({ suite, task, trial: 0, mode: episodeMode(null, task), model: oracle, signal, sandbox: () => sandbox.get() });
    } catch (error) {
      throw new ToolForgeError('suite.unsolvable-task', `${where(task)}task '${task.id}': builtin/oracle crashed while validating it: ${errorMessage(error)}`, { fix, cause: error });
    }
    if (signal?.aborted) return;
    if (!result.score.passed) {
      throw new ToolForgeError('suite.unsolvable-task', `${where(task)}task '${task.id}' is not solvable: builtin/oracle scored ${result.score.value} (${result.score.failure ?? 'no failure code'}: ${result.score.reason}; termination ${result.termination})`, { fix });
    }
  }, () => signal?.aborted ?? false);
}
