import { ConfigError, ToolForgeError, errorMessage } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { taskSchema } from '../core/task.ts';
import { describeIssue } from '../store/run-jsonl.ts';
import type { GenerateTasksRequest, Suite } from '../suites/spec.ts';
import type { ParaphraseCache } from '../transforms/perturb/model-paraphrase.ts';
import { applyTransformsPrepared } from '../transforms/registry.ts';
import type { TransformRequest } from '../transforms/spec.ts';
import { forEachWithConcurrency } from './bounded-concurrency.ts';
import { resolveModelSource } from './resolve-model-source.ts';
import type { LazySandbox } from './lazy-sandbox.ts';
import { createLazySandbox } from './lazy-sandbox.ts';
import { episodeMode } from './episode-mode.ts';
import { runEpisode } from './run-episode.ts';
import type { ModelSource } from '../models/spec.ts';

export type GenerateTasksOptions = GenerateTasksRequest & {
  /** Transforms applied in order to every generated task (`--transform`); the oracle check runs on the result. */
  transforms?: readonly TransformRequest[];
  /** Run builtin/oracle on every task and refuse the batch if one is not solved (default true). */
  validate?: boolean;
  /** Oracle episodes in flight during validation (default 2). */
  concurrency?: number;
  /** Where `perturb:paraphrase` keeps the `phrasingModel`'s paraphrases (default: in memory). */
  paraphraseCache?: ParaphraseCache;
};

/**
 * Generates tasks and checks them before they are handed out: each is a well-formed Task of this
 * suite with a unique id, and (unless `validate: false`) builtin/oracle solves it through the same
 * episode path a real model takes.
 */
export async function generateTasks(suite: Suite, options: GenerateTasksOptions): Promise<Task[]> {
  const { validate = true, concurrency = 2, transforms = [], paraphraseCache, ...request } = options;
  const generated = await suite.generate(request);
  if (request.count !== undefined && generated.length < request.count && !request.signal?.aborted) {
    throw new ConfigError('config.invalid', `suite '${suite.id}' has only ${generated.length} tasks for these settings, fewer than --count ${request.count}`, {
      fix: `pass --count ${generated.length} or less (or leave --count out for all of them)`,
    });
  }
  const tasks = await applyTransformsPrepared(generated, transforms, request.seed, {
    ...(request.phrasingModel ? { phrasingModel: request.phrasingModel } : {}), ...(paraphraseCache ? { paraphraseCache } : {}), ...(request.signal ? { signal: request.signal } : {}),
  });
  const seen = new Set<string>();
  for (const task of tasks) {
    const parsed = taskSchema.safeParse(task);
    if (!parsed.success) {
      throw new ToolForgeError('suite.invalid-task', `suite '${suite.id}' generated an invalid task '${String((task as { id?: unknown }).id)}': ${describeIssue(parsed.error)}`, {
        fix: `this is a bug in suite ${suite.id}; please report it with the seed and --set values`,
      });
    }
    if (task.suite.id !== suite.id || task.suite.version !== suite.version || seen.has(task.id)) {
      throw new ToolForgeError('suite.invalid-task', `suite '${suite.id}' generated task '${task.id}' with a wrong suite stamp (${task.suite.id} ${task.suite.version}) or a duplicate id`, {
        fix: `this is a bug in suite ${suite.id}; please report it with the seed and --set values`,
      });
    }
    seen.add(task.id);
  }
  if (validate) await validateWithOracle(suite, tasks, concurrency, request.signal);
  return tasks;
}

async function validateWithOracle(suite: Suite, tasks: readonly Task[], concurrency: number, signal: AbortSignal | undefined): Promise<void> {
  if (!Object.hasOwn(suite.builtinModels, 'oracle')) {
    throw new ToolForgeError('internal', `suite '${suite.id}' has no builtin/oracle, so its tasks cannot be validated`, {
      fix: `add an oracle to suite ${suite.id}, or generate with validation off`,
    });
  }
  const oracle = resolveModelSource(suite, 'builtin/oracle');
  const fix = `this is a bug in suite ${suite.id}: please report it with the seed and --set values`;
  const sandbox = createLazySandbox(Math.min(concurrency, 2));
  try {
    await validateEach(suite, tasks, concurrency, signal, oracle, sandbox, fix);
  } finally {
    await sandbox.dispose();
  }
}

async function validateEach(
  suite: Suite, tasks: readonly Task[], concurrency: number, signal: AbortSignal | undefined, oracle: ModelSource, sandbox: LazySandbox, fix: string,
): Promise<void> {
  await forEachWithConcurrency(tasks, concurrency, async (task) => {
    let result;
    try {
      result = await runEpisode({ suite, task, trial: 0, mode: episodeMode(null, task), model: oracle, signal, sandbox: () => sandbox.get() });
    } catch (error) {
      throw new ToolForgeError('suite.unsolvable-task', `task '${task.id}': builtin/oracle crashed while validating it: ${errorMessage(error)}`, { fix, cause: error });
    }
    if (signal?.aborted) return;
    if (!result.score.passed) {
      throw new ToolForgeError('suite.unsolvable-task', `task '${task.id}' is not solvable: builtin/oracle scored ${result.score.value} (${result.score.failure ?? 'no failure code'}: ${result.score.reason}; termination ${result.termination})`, { fix });
    }
  }, () => signal?.aborted ?? false);
}
