/**
 * A difficulty sweep: the cross product of knob values (`--grid core=5,10,20 --grid depth=1,3,5`),
 * each grid point's tasks generated once and run by every model, as one group of runs. Each run
 * records the group id, the grid and its point in its params (`sweep`, see sweep-membership.ts), so a
 * report finds the group and charts accuracy along each knob. Points the suite rejects (e.g. a depth
 * that needs more core functions than the point has) are skipped and returned with the reason.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import { createRetryWaitBudget } from '../models/request-retry.ts';
import type { GenerationSettings } from '../models/spec.ts';
import { defaultResultsPath, openResultsStore } from '../store/results-store.ts';
import type { ResultsStore } from '../store/results-store.ts';
import { createRunId } from '../store/run-id.ts';
import { exampleKnobValues, resolveKnobs } from '../suites/knob.ts';
import type { Suite } from '../suites/spec.ts';
import { streamGeneratedTasks } from './generate-tasks.ts';
import { checkTransformChain, parseSeededTransformRequest } from '../transforms/registry.ts';
import { resolveModelSource } from './resolve-model-source.ts';
import { checkSuiteMode } from './episode-mode.ts';
import type { ExecutionOptions } from './run-evaluation.ts';
import { runEvaluation } from './run-evaluation.ts';
import { defaultRetryPolicy } from './retry-policy.ts';
import type { RunProgressListener } from './run-progress.ts';
import type { RunSummary } from './summarize-run.ts';
import type { SweepMembership } from './sweep-membership.ts';
import { sweepParamsKey } from './sweep-membership.ts';

export type SweepOptions = {
  suite: Suite;
  /** Knob name -> the values to sweep, as typed (`['5', '10', '20']`); the first knob varies slowest. */
  grid: Readonly<Record<string, readonly string[]>>;
  /** Model references; every grid point runs each, in this order. */
  models: readonly string[];
  /** Knobs held fixed at every point (`--set`). */
  fixed?: Readonly<Record<string, string>>;
  /** A file knob's relative value is taken from this folder (the command's working folder; see resolveKnobs). */
  directory?: string;
  /** Default 0. */
  seed?: number;
  count?: number;
  trials?: number;
  concurrency?: number;
  mode?: Mode;
  baseUrl?: string;
  settings?: GenerationSettings;
  /** Oracle-validate generated tasks (default true, like `run`). */
  validate?: boolean;
  /**
   * Transforms every point's tasks are derived with, in order, as `--transform` takes them (`perturb:kind=case-mix`):
   * robustness along a difficulty axis. Only those that need nothing but the seed: a sweep has no phrasing model.
   */
  transforms?: readonly string[];
  /** Default: a new id `sweep-<suite>-<utc time>-<hex>`. */
  group?: string;
  store?: ResultsStore;
  dbPath?: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  onProgress?: RunProgressListener;
  /** Reported before each point's runs. */
  onPoint?: (event: { point: Record<string, string>; index: number; points: number }) => void;
  cliArgs?: string[];
} & Pick<ExecutionOptions, 'retry' | 'episodeTimeoutMs' | 'stopAfterInfrastructureErrors' | 'waitBudget' | 'databaseFlag'>;

export type SweepResult = {
  group: string;
  /** One run per (valid point, model), in grid order then model order. */
  runs: { point: JsonObject; model: string; summary: RunSummary }[];
  skipped: { point: Record<string, string>; reason: string }[];
  /** True when the signal stopped the sweep: `runs` holds what ran (the last one possibly cancelled mid-way). */
  cancelled: boolean;
};

export async function runSweep(options: SweepOptions): Promise<SweepResult> {
  const { suite } = options;
  const points = gridPoints(suite, options.grid, options.fixed ?? {});
  if (options.models.length === 0) throw new ConfigError('config.invalid', 'a sweep needs at least one model', { fix: 'pass --model <ref> (repeatable)' });
  if (new Set(options.models).size !== options.models.length) throw new ConfigError('config.invalid', 'a model is given twice', { fix: 'pass each --model once' });
  // Before the first point: a mode the suite lacks would fail every point.
  checkSuiteMode(suite, options.mode);
  // Every model reference must resolve (and find its API key) before the first run is recorded.
  for (const model of options.models) resolveModelSource(suite, model, { baseUrl: options.baseUrl, env: options.env });
  checkSettingsApply(options.models, options.settings);
  const transforms = (options.transforms ?? []).map((text) => parseSeededTransformRequest(text, 'a sweep'));
  checkTransformChain(transforms);
  const group = options.group ?? createRunId(`sweep-${suite.id}`, new Date(), randomBytes(2).toString('hex'));
  const inFolder = options.directory === undefined ? {} : { directory: options.directory };
  const grid = Object.fromEntries(Object.entries(options.grid).map(([name, values]) => [name, values.map((value) => resolveKnobs(suite.id, suite.knobs, { [name]: value }, inFolder)[name] as number | string | boolean)]));
  const store = options.store ?? openResultsStore(options.dbPath ?? defaultResultsPath);
  const result: SweepResult = { group, runs: [], skipped: [], cancelled: false };
  // One retry wait budget (--max-retry-wait) for the whole sweep, unless the caller shares one of its own.
  const waitBudget = options.waitBudget ?? createRetryWaitBudget({ ...defaultRetryPolicy, ...options.retry }, 'sweep');
  try {
    for (const [index, point] of points.entries()) {
      if (options.signal?.aborted) break;
      options.onPoint?.({ point, index, points: points.length });
      const params = resolveKnobs(suite.id, suite.knobs, { ...options.fixed, ...point }, inFolder);
      const membership: SweepMembership = {
        group, grid, point: Object.fromEntries(Object.keys(point).map((name) => [name, params[name] as number | string | boolean])),
      };
      // The point's tasks are made once, streamed into the first model's run; the other models read them from that
      // run a page at a time. A point of 100,000 tasks is never held whole.
      let firstRunId: string | undefined;
      const seed = options.seed ?? 0;
      // How the point's tasks are made, as `run` records it: a run stopped while they stream in is resumed from it, and a
      // long point's tasks are imported on a worker thread while its episodes run.
      const taskRecipe = {
        seed, ...(options.count !== undefined ? { count: options.count } : {}), params, ...(transforms.length > 0 ? { transforms: [...(options.transforms ?? [])] } : {}),
      };
      for (const model of options.models) {
        const tasks = firstRunId !== undefined ? store.iterateTasks(firstRunId)
          : streamGeneratedTasks(suite, { seed, count: options.count, params, signal: options.signal, validate: options.validate ?? true, transforms });
        let summary;
        try {
          summary = await runEvaluation({
            suite, tasks, modelRef: model, baseUrl: options.baseUrl, mode: options.mode, trials: options.trials, concurrency: options.concurrency,
            settings: isBuiltin(model) ? undefined : options.settings, seed, params: { ...params, [sweepParamsKey]: membership }, cliArgs: options.cliArgs,
            store, env: options.env, signal: options.signal, onProgress: options.onProgress,
            retry: options.retry, episodeTimeoutMs: options.episodeTimeoutMs, stopAfterInfrastructureErrors: options.stopAfterInfrastructureErrors, waitBudget,
            databaseFlag: options.databaseFlag, taskRecipe,
            // A later model reads the tasks from the first model's run: never made again on the import thread.
            ...(firstRunId !== undefined ? { importThreadAfter: Number.MAX_SAFE_INTEGER } : {}),
          });
        } catch (error) {
          // A combination the suite rejects (a knob constraint, refused before a run is recorded) is a hole in the
          // grid, not a failed sweep.
          if (firstRunId === undefined && error instanceof ToolForgeError && error.code === 'config.invalid-knob') {
            result.skipped.push({ point, reason: error.message });
            break;
          }
          throw error;
        }
        firstRunId ??= summary.runId;
        result.runs.push({ point: params, model, summary });
        if (options.signal?.aborted) break;
      }
    }
  } finally {
    if (!options.store) store.close();
  }
  result.cancelled = options.signal?.aborted ?? false;
  if (result.runs.length === 0 && !result.cancelled) {
    throw new ConfigError('config.invalid-knob', `no point of the grid is valid for suite '${suite.id}': ${result.skipped[0]?.reason ?? 'empty grid'}`, {
      fix: 'change the --grid values (see the knob ranges in \'toolforge suites\')',
    });
  }
  return result;
}

/**
 * Two values of a knob's grid that are one value (`5` and `05`, `true` and `True`...), said as ` ('5' and '05' are both 5)`:
 * the same point would be run twice and pooled as two. Compared as the suite reads them, not as typed.
 */
export function repeatedKnobValue(suite: Suite, name: string, values: readonly string[]): string | undefined {
  const seen = new Map<string, string>();
  for (const value of values) {
    const resolved = JSON.stringify(resolveKnobs(suite.id, suite.knobs, { [name]: value })[name]);
    const earlier = seen.get(resolved);
    if (earlier !== undefined) return earlier === value ? ` ('${value}' twice)` : ` ('${earlier}' and '${value}' are both ${resolved})`;
    seen.set(resolved, value);
  }
  return undefined;
}

/** The cross product of the grid, first knob slowest, after checking names and values. */
export function gridPoints(suite: Suite, grid: Readonly<Record<string, readonly string[]>>, fixed: Readonly<Record<string, string>>): Record<string, string>[] {
  const names = Object.keys(grid);
  if (names.length === 0) {
    // A difficulty knob makes the example: a data path (a string knob) is not one a user sweeps.
    const example = suite.knobs.find((knob) => knob.type !== 'string') ?? suite.knobs[0];
    throw new ConfigError('config.invalid', 'a sweep needs at least one --grid', { fix: `pass --grid <knob>=<v1>,<v2>,...${example ? `, e.g. --grid ${example.name}=${exampleKnobValues(example).join(',')}` : ''} (see 'toolforge suites')` });
  }
  for (const name of names) {
    const values = grid[name];
    // resolveKnobs names unknown knobs and bad values with their fix.
    for (const value of values) resolveKnobs(suite.id, suite.knobs, { [name]: value }, { flag: '--grid' });
    const repeated = repeatedKnobValue(suite, name, values);
    if (values.length === 0 || repeated !== undefined) {
      throw new ConfigError('config.invalid', `--grid ${name} needs distinct values, got '${values.join(',')}'${repeated ?? ''}`, { fix: `--grid ${name}=<v1>,<v2>,...` });
    }
    if (Object.hasOwn(fixed, name)) {
      throw new ConfigError('config.invalid', `knob '${name}' is both swept (--grid) and fixed (--set)`, { fix: `drop --set ${name}=... or --grid ${name}=...` });
    }
  }
  let points: Record<string, string>[] = [{}];
  for (const name of names) points = points.flatMap((point) => grid[name].map((value) => ({ ...point, [name]: value })));
  return points;
}

function isBuiltin(model: string): boolean {
  return model.startsWith('builtin/');
}

/**
 * A built-in model answers from the task: generation settings change nothing it does. With a provider model beside it
 * the settings are that model's (the built-in run records none); with built-in models only they would apply to nothing.
 */
function checkSettingsApply(models: readonly string[], settings: GenerationSettings | undefined): void {
  const given = Object.entries(settings ?? {}).filter(([, value]) => value !== undefined).map(([name]) => name);
  if (given.length === 0 || !models.every(isBuiltin)) return;
  const flags = given.map((name) => `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`);
  throw new ConfigError('config.invalid', `${flags.join(', ')}: every model of the sweep is built in (${models.join(', ')}); built-in models are deterministic and take no generation settings`, {
    fix: `drop ${flags.join(' and ')}, or add a provider model, e.g. --model openai-compatible/<model> --base-url <url>`,
  });
}
