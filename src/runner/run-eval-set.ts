/**
 * Runs an eval set (eval-set-config.ts): for each suite, every grid point x mode x transform chain x model is one
 * run, all sharing a group id derived from the eval set's content. Running the same eval set again continues it:
 * finished runs are kept, unfinished ones (killed, cancelled, infrastructure errors) are resumed, missing ones
 * started. Each run records its place under `params.sweep` (so reports chart it like a sweep) and `params.evalSet`.
 */
import { createHash } from 'node:crypto';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import { canonicalJson } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import type { BaseUrlFlag } from '../models/registry.ts';
import { modelSettingsLabel } from '../models/model-settings-label.ts';
import type { GenerationSettings } from '../models/spec.ts';
import type { ResultsStore } from '../store/results-store.ts';
import type { StoredRun } from '../store/stored-run.ts';
import { resolveKnobs } from '../suites/knob.ts';
import { getSuite } from '../suites/registry.ts';
import type { Suite } from '../suites/spec.ts';
import { checkTransformChain, parseSeededTransformRequest } from '../transforms/registry.ts';
import type { EvalSet, EvalSetModel, EvalSetSuite } from './eval-set-config.ts';
import { streamGeneratedTasks } from './generate-tasks.ts';
import { modelReferenceIn, resolveModelSource } from './resolve-model-source.ts';
import type { ExecutionOptions } from './run-evaluation.ts';
import { resumeEvaluation, runEvaluation } from './run-evaluation.ts';
import { repeatedKnobValue } from './run-sweep.ts';
import type { SweepMembership } from './sweep-membership.ts';
import { sweepParamsKey } from './sweep-membership.ts';

/** An eval set's model gets its endpoint from its entry in the file, not from --base-url. */
const evalSetBaseUrl: BaseUrlFlag = { name: 'a baseUrl in its models entry of the eval set', example: (url) => `baseUrl: ${url}` };

/** The params key that holds a run's place in an eval set. */
export const evalSetParamsKey = 'evalSet';

/**
 * One run of an eval set. `modelSettings` (the endpoint and settings label) is there only when the file lists the
 * model's reference more than once, and `set` (the entry's fixed knobs) and `count` (the entry's) only when it lists
 * the suite more than once, so the cells of other files keep the keys they were stored under.
 */
export type EvalSetCell = {
  suite: string; set?: Record<string, string>; count?: number; point: Record<string, string>; mode: Mode | null; transforms: string[];
  model: string; modelSettings?: string;
};

export type EvalSetOptions = Omit<ExecutionOptions, 'store' | 'dbPath'> & {
  evalSet: EvalSet;
  /** Names the group (default 'eval-set'); the group id adds a digest of the eval set's content. */
  name?: string;
  store: ResultsStore;
  cliArgs?: string[];
  /**
   * The folder of the eval set's file: a file knob's relative value (`set: {data: samples.jsonl}`) is looked for in it,
   * as paths in a config file are, wherever the command runs, and recorded absolute when found (see resolveKnobs); by
   * default, and for a name not found there, the working folder. A relative replay file (`ref: replay/<file>`) is looked
   * for there too; the run is named by the reference as written.
   */
  directory?: string;
  /** Told before each cell: whether it is started, resumed or already done. */
  onCell?: (event: { cell: EvalSetCell; index: number; cells: number; action: 'start' | 'resume' | 'done' }) => void;
};

export type EvalSetResult = {
  group: string;
  runs: { runId: string; cell: EvalSetCell; action: 'start' | 'resume' | 'done' }[];
  skipped: { cell: Omit<EvalSetCell, 'model'>; reason: string }[];
  cancelled: boolean;
};

/** A resumed run reads the files it recorded (its replay file where it was): the eval set's folder is not a resume's. */
function withoutDirectory(options: EvalSetOptions): Omit<EvalSetOptions, 'directory'> {
  const { directory: _directory, ...rest } = options;
  return rest;
}

/** A file knob's relative value is taken from the eval set's folder (see `directory`). */
function inSetFolder(options: EvalSetOptions): { directory?: string } {
  return options.directory === undefined ? {} : { directory: options.directory };
}

/** The group id of an eval set: its name and a digest of its content, so the same file continues the same group. */
export function evalSetGroup(evalSet: EvalSet, name: string): string {
  return `${evalSet.name ?? name}-${createHash('sha256').update(canonicalJson(evalSet)).digest('hex').slice(0, 10)}`;
}

export async function runEvalSet(options: EvalSetOptions): Promise<EvalSetResult> {
  const { evalSet, store } = options;
  const group = evalSetGroup(evalSet, options.name ?? 'eval-set');
  // Everything that can be wrong with the file is found before the first run: suites, knobs, modes, transforms, models.
  // Each problem names the field it is in (suites[1].grid.core[2]), as the file's schema errors do.
  evalSet.models.forEach(checkNoBuiltinSettings);
  const plans = evalSet.suites.map((entry, suiteIndex) => {
    const at = `suites[${suiteIndex}]`;
    const suite = atField(`${at}.id`, () => getSuite(entry.id));
    const fixed = Object.fromEntries(Object.entries(entry.set).map(([name, value]) => [name, String(value)]));
    for (const [name, value] of Object.entries(fixed)) atField(`${at}.set.${name}`, () => resolveKnobs(suite.id, suite.knobs, { [name]: value }, { flag: 'eval-set' }));
    const gridNames = Object.keys(entry.grid);
    for (const name of gridNames) {
      if (Object.hasOwn(entry.set, name)) {
        throw new ConfigError('config.invalid', `eval set field '${at}.grid.${name}': knob '${name}' is both swept (grid) and fixed (set)`, { fix: `remove ${name} from set: or from grid:` });
      }
      // An unknown knob is the key's fault, not its first value's.
      if (!suite.knobs.some((knob) => knob.name === name)) atField(`${at}.grid.${name}`, () => resolveKnobs(suite.id, suite.knobs, { [name]: '' }));
      entry.grid[name].forEach((value, index) => atField(`${at}.grid.${name}[${index}]`, () => resolveKnobs(suite.id, suite.knobs, { [name]: String(value) }, { flag: 'eval-set' })));
      const repeated = repeatedKnobValue(suite, name, entry.grid[name].map(String));
      if (repeated !== undefined) {
        throw new ConfigError('config.invalid', `eval set field '${at}.grid.${name}' needs distinct values${repeated}: the same point would run twice`, { fix: `list each value of ${name} once` });
      }
    }
    let points: Record<string, string>[] = [{}];
    for (const name of gridNames) points = points.flatMap((point) => entry.grid[name].map((value) => ({ ...point, [name]: String(value) })));
    for (const point of points) resolveKnobs(suite.id, suite.knobs, { ...fixed, ...point });
    (entry.modes ?? []).forEach((mode, index) => {
      if (!suite.modes.includes(mode)) {
        throw new ConfigError('config.unsupported-mode', `eval set field '${at}.modes[${index}]': suite '${suite.id}' does not support mode '${mode}'`, { fix: `use modes from: ${suite.modes.join(', ')}` });
      }
      const earlier = entry.modes?.indexOf(mode) ?? index;
      if (earlier < index) {
        throw new ConfigError('config.invalid', `eval set field '${at}.modes[${index}]': mode '${mode}' is already listed as ${at}.modes[${earlier}], so each of its runs would run twice`, { fix: `list each mode once in ${at}.modes` });
      }
    });
    const chains = (entry.transforms ?? [[]]).map((chain, chainIndex) => {
      const requests = chain.map((text, index) => atField(`${at}.transforms[${chainIndex}][${index}]`, () => parseSeededTransformRequest(text, 'an eval set')));
      atField(`${at}.transforms[${chainIndex}]`, () => checkTransformChain(requests));
      // As applied, not as spelt: 'rename-tools' and 'rename-tools:' are one chain.
      return { texts: chain, requests, key: canonicalJson(requests.map((request) => ({ id: request.transform.id, knobs: request.knobs }))) };
    });
    chains.forEach((chain, index) => {
      const earlier = chains.findIndex((other) => other.key === chain.key);
      if (earlier < index) {
        throw new ConfigError('config.invalid', `eval set field '${at}.transforms[${index}]': this transform chain is already listed as ${at}.transforms[${earlier}], so each of its runs would run twice`, { fix: `list each chain once in ${at}.transforms` });
      }
    });
    evalSet.models.forEach((model, index) => atField(`models[${index}].ref`, () => resolveModelSource(suite, modelReferenceIn(model.ref, options.directory), { baseUrl: model.baseUrl, env: options.env, baseUrlFlag: evalSetBaseUrl })));
    return { entry, suite, fixed, points, modes: entry.modes ?? [null], chains, grid: entry.grid };
  });
  checkNoRepeatedRuns(plans, evalSet, inSetFolder(options));
  const existing = new Map<string, StoredRun>();
  for (const run of store.listRuns()) {
    // A rescore of a cell's run carries its membership, but the cell's run is the one that was run (and resumes).
    if (run.provenance.rescoredFrom !== undefined) continue;
    const membership = run.params[evalSetParamsKey] as { group?: unknown; cell?: unknown } | undefined;
    if (membership?.group === group && typeof membership.cell === 'string') existing.set(membership.cell, run);
  }
  const refs = evalSet.models.map((model) => model.ref);
  const repeatedRefs = new Set(refs.filter((ref, index) => refs.indexOf(ref) !== index));
  const suiteIds = evalSet.suites.map((entry) => entry.id);
  const repeatedSuites = new Set(suiteIds.filter((id, index) => suiteIds.indexOf(id) !== index));
  const cellCount = plans.reduce((sum, plan) => sum + plan.points.length * plan.modes.length * plan.chains.length * evalSet.models.length, 0);
  const result: EvalSetResult = { group, runs: [], skipped: [], cancelled: false };
  let index = 0;
  for (const plan of plans) {
    const { suite } = plan;
    for (const point of plan.points) {
      for (const chain of plan.chains) {
        if (options.signal?.aborted) break;
        const params = resolveKnobs(suite.id, suite.knobs, { ...plan.fixed, ...point }, inSetFolder(options));
        // The cells' tasks are made once, streamed into the first cell's run; the other cells read them from that run
        // a page at a time (a cell of 100,000 tasks is never held whole).
        let firstRunId: string | undefined;
        const cellsOfTasks = plan.modes.flatMap((mode) => evalSet.models.map((model) => ({ mode, model })));
        for (const { mode, model } of cellsOfTasks) {
          if (options.signal?.aborted) break;
          const cell: EvalSetCell = {
            suite: suite.id,
            ...(repeatedSuites.has(suite.id) ? { set: plan.fixed, ...(plan.entry.count !== undefined ? { count: plan.entry.count } : {}) } : {}),
            point, mode, transforms: chain.texts, model: model.ref,
            ...(repeatedRefs.has(model.ref) ? { modelSettings: modelSettingsLabel(model.baseUrl ?? null, settingsOf(model)) || 'default settings' } : {}),
          };
          const key = canonicalJson(cell);
          let stored = existing.get(key);
          index += 1;
          if (stored && !store.hasAllTasks(stored.id) && stored.provenance.taskRecipe === undefined) {
            // Stopped while its tasks streamed in, with no recipe to make the rest (a run stored before eval sets kept one
            // for every chain): it ran no episode yet (they start once every task is stored). Started again,
            // it loses nothing. A run with a recipe is resumed below: it keeps its id, and the rest of its tasks are made.
            store.deleteRun(stored.id);
            stored = undefined;
          }
          if (stored && isComplete(store, stored)) {
            options.onCell?.({ cell, index, cells: cellCount, action: 'done' });
            result.runs.push({ runId: stored.id, cell, action: 'done' });
            firstRunId ??= stored.id;
            continue;
          }
          if (stored) {
            options.onCell?.({ cell, index, cells: cellCount, action: 'resume' });
            await resumeEvaluation({ ...withoutDirectory(options), runId: stored.id, suite, baseUrl: model.baseUrl, store, cliArgs: options.cliArgs });
            result.runs.push({ runId: stored.id, cell, action: 'resume' });
            firstRunId ??= stored.id;
            continue;
          }
          options.onCell?.({ cell, index, cells: cellCount, action: 'start' });
          const membership: SweepMembership = {
            group,
            grid: Object.fromEntries(Object.entries(plan.grid).map(([name, values]) => [name, values])),
            point: Object.fromEntries(Object.keys(point).map((name) => [name, params[name] as number | string | boolean])),
          };
          const runParams: JsonObject = { ...params, [sweepParamsKey]: membership, [evalSetParamsKey]: { group, cell: key } };
          const count = plan.entry.count ?? evalSet.count;
          const tasks = firstRunId !== undefined ? store.iterateTasks(firstRunId) : streamGeneratedTasks(suite, {
            seed: evalSet.seed, count, params, signal: options.signal, transforms: chain.requests,
          });
          // The suite's tasks, with the chain's transforms (an eval set has no phrasing model: each needs only the seed),
          // have a recipe, as `run` records one: a run stopped while they stream in is resumed from it, keeping its id,
          // instead of being deleted and started again under a new one.
          const recipe = { taskRecipe: { seed: evalSet.seed, ...(count !== undefined ? { count } : {}), params, ...(chain.texts.length > 0 ? { transforms: chain.texts } : {}) } };
          // A later cell reads the tasks from the first cell's run: never made again on the import thread.
          const fromStore = firstRunId !== undefined ? { importThreadAfter: Number.MAX_SAFE_INTEGER } : {};
          let summary;
          try {
            summary = await runEvaluation({
              ...options, suite, tasks, modelRef: model.ref, baseUrl: model.baseUrl, mode: mode ?? undefined, trials: evalSet.trials,
              concurrency: evalSet.concurrency ?? options.concurrency, settings: settingsOf(model), seed: evalSet.seed, params: runParams,
              store, cliArgs: options.cliArgs, ...recipe, ...fromStore,
            });
          } catch (error) {
            if (options.signal?.aborted) break;
            // A combination the suite rejects (a knob constraint, refused before a run is recorded) is a hole in the
            // grid, not a failed eval set.
            if (firstRunId === undefined && error instanceof ToolForgeError && error.code === 'config.invalid-knob') {
              result.skipped.push({ cell: { suite: suite.id, point, mode, transforms: chain.texts }, reason: error.message });
              break;
            }
            throw error;
          }
          firstRunId ??= summary.runId;
          result.runs.push({ runId: summary.runId, cell, action: 'start' });
        }
      }
    }
  }
  result.cancelled = options.signal?.aborted ?? false;
  return result;
}

/**
 * A built-in model answers from the task (an oracle, a planner, a seeded random one): a temperature or token cap given
 * to it would be recorded with the run and change nothing, which reads as a result of the setting.
 */
function checkNoBuiltinSettings(model: EvalSetModel, index: number): void {
  if (!model.ref.startsWith('builtin/')) return;
  const field = (['temperature', 'maxOutputTokens', 'strictTools'] as const).find((name) => model[name] !== undefined);
  if (field === undefined) return;
  throw new ConfigError('config.invalid', `eval set field 'models[${index}].${field}': '${model.ref}' is a built-in model: built-in models are deterministic and take no generation settings`, {
    fix: `drop models[${index}].${field}, or give a provider model, e.g. {ref: openai-compatible/<model>, baseUrl: <url>, ${field}: ${JSON.stringify(model[field])}}`,
  });
}

type Plan = { entry: EvalSetSuite; suite: Suite; fixed: Record<string, string>; points: Record<string, string>[]; modes: (Mode | null)[]; chains: { texts: string[]; key: string }[] };

/**
 * Two entries that reach the same run (the same suite, knob values once defaults are filled in, count, mode and
 * transforms): each model would run it twice, and a continuation could not tell the two apart. Within one entry the
 * grid's values, the modes and the chains are each checked distinct already.
 */
function checkNoRepeatedRuns(plans: readonly Plan[], evalSet: EvalSet, knobOptions: { directory?: string }): void {
  const seen = new Map<string, { suiteIndex: number; point: Record<string, string> }>();
  plans.forEach((plan, suiteIndex) => {
    const count = plan.entry.count ?? evalSet.count ?? null;
    for (const point of plan.points) {
      const params = resolveKnobs(plan.suite.id, plan.suite.knobs, { ...plan.fixed, ...point }, knobOptions);
      for (const mode of plan.modes) {
        for (const chain of plan.chains) {
          const key = canonicalJson({ suite: plan.suite.id, params, count, mode, transforms: chain.key });
          const earlier = seen.get(key);
          if (earlier === undefined) {
            seen.set(key, { suiteIndex, point });
            continue;
          }
          if (earlier.suiteIndex === suiteIndex) continue;
          const where = (index: number, at: Record<string, string>): string => `suites[${index}]${Object.keys(at).length > 0 ? ` (${knobText(at)})` : ''}`;
          const runs = [knobText(params), ...(mode !== null ? [`mode ${mode}`] : []), ...(chain.texts.length > 0 ? [`transforms ${chain.texts.join('+')}`] : [])].join(' ');
          throw new ConfigError('config.invalid', `eval set entries ${where(earlier.suiteIndex, earlier.point)} and ${where(suiteIndex, point)} both run suite '${plan.suite.id}' with ${runs}${count !== null ? ` (count ${count})` : ''}: each model would run it twice`, {
            fix: `run it from one entry only: take it out of suites[${earlier.suiteIndex}] or suites[${suiteIndex}] (a grid value, or the whole entry), or change a knob, mode, transform or count of one`,
          });
        }
      }
    }
  });
}

function knobText(values: Record<string, unknown>): string {
  return Object.entries(values).filter(([, value]) => value !== undefined).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');
}

function isComplete(store: ResultsStore, run: StoredRun): boolean {
  const counts = store.countEpisodes(run.id);
  return run.status === 'finished' && counts.scored === run.taskCount * run.trials;
}

function settingsOf(model: EvalSetModel): GenerationSettings {
  const settings: GenerationSettings = {};
  if (model.temperature !== undefined) settings.temperature = model.temperature;
  if (model.maxOutputTokens !== undefined) settings.maxOutputTokens = model.maxOutputTokens;
  if (model.strictTools !== undefined) settings.strictTools = model.strictTools;
  return settings;
}

/** Runs a check of one field of the file; a ConfigError it throws is restated with the field's path. */
function atField<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.code, `eval set field '${field}': ${error.problem}`, { fix: error.fix, cause: error });
  }
}
