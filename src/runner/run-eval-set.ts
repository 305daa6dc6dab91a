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
import { parseTransformRequest } from '../transforms/registry.ts';
import type { EvalSet, EvalSetModel } from './eval-set-config.ts';
import { streamGeneratedTasks } from './generate-tasks.ts';
import { resolveModelSource } from './resolve-model-source.ts';
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
 * model's reference more than once, so the cells of other files keep the keys they were stored under.
 */
export type EvalSetCell = { suite: string; point: Record<string, string>; mode: Mode | null; transforms: string[]; model: string; modelSettings?: string };

export type EvalSetOptions = Omit<ExecutionOptions, 'store' | 'dbPath'> & {
  evalSet: EvalSet;
  /** Names the group (default 'eval-set'); the group id adds a digest of the eval set's content. */
  name?: string;
  store: ResultsStore;
  cliArgs?: string[];
  /** Told before each cell: whether it is started, resumed or already done. */
  onCell?: (event: { cell: EvalSetCell; index: number; cells: number; action: 'start' | 'resume' | 'done' }) => void;
};

export type EvalSetResult = {
  group: string;
  runs: { runId: string; cell: EvalSetCell; action: 'start' | 'resume' | 'done' }[];
  skipped: { cell: Omit<EvalSetCell, 'model'>; reason: string }[];
  cancelled: boolean;
};

/** The group id of an eval set: its name and a digest of its content, so the same file continues the same group. */
export function evalSetGroup(evalSet: EvalSet, name: string): string {
  return `${evalSet.name ?? name}-${createHash('sha256').update(canonicalJson(evalSet)).digest('hex').slice(0, 10)}`;
}

export async function runEvalSet(options: EvalSetOptions): Promise<EvalSetResult> {
  const { evalSet, store } = options;
  const group = evalSetGroup(evalSet, options.name ?? 'eval-set');
  // Everything that can be wrong with the file is found before the first run: suites, knobs, modes, transforms, models.
  // Each problem names the field it is in (suites[1].grid.core[2]), as the file's schema errors do.
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
    });
    const chains = (entry.transforms ?? [[]]).map((chain, chainIndex) => ({
      texts: chain,
      requests: chain.map((text, index) => atField(`${at}.transforms[${chainIndex}][${index}]`, () => parseTransformRequest(text))),
    }));
    evalSet.models.forEach((model, index) => atField(`models[${index}].ref`, () => resolveModelSource(suite, model.ref, { baseUrl: model.baseUrl, env: options.env, baseUrlFlag: evalSetBaseUrl })));
    return { entry, suite, fixed, points, modes: entry.modes ?? [null], chains, grid: entry.grid };
  });
  const existing = new Map<string, StoredRun>();
  for (const run of store.listRuns()) {
    // A rescore of a cell's run carries its membership, but the cell's run is the one that was run (and resumes).
    if (run.provenance.rescoredFrom !== undefined) continue;
    const membership = run.params[evalSetParamsKey] as { group?: unknown; cell?: unknown } | undefined;
    if (membership?.group === group && typeof membership.cell === 'string') existing.set(membership.cell, run);
  }
  const refs = evalSet.models.map((model) => model.ref);
  const repeatedRefs = new Set(refs.filter((ref, index) => refs.indexOf(ref) !== index));
  const cellCount = plans.reduce((sum, plan) => sum + plan.points.length * plan.modes.length * plan.chains.length * evalSet.models.length, 0);
  const result: EvalSetResult = { group, runs: [], skipped: [], cancelled: false };
  let index = 0;
  for (const plan of plans) {
    const { suite } = plan;
    for (const point of plan.points) {
      for (const chain of plan.chains) {
        if (options.signal?.aborted) break;
        const params = resolveKnobs(suite.id, suite.knobs, { ...plan.fixed, ...point });
        // The cells' tasks are made once, streamed into the first cell's run; the other cells read them from that run
        // a page at a time (a cell of 100,000 tasks is never held whole).
        let firstRunId: string | undefined;
        const cellsOfTasks = plan.modes.flatMap((mode) => evalSet.models.map((model) => ({ mode, model })));
        for (const { mode, model } of cellsOfTasks) {
          if (options.signal?.aborted) break;
          const cell: EvalSetCell = {
            suite: suite.id, point, mode, transforms: chain.texts, model: model.ref,
            ...(repeatedRefs.has(model.ref) ? { modelSettings: modelSettingsLabel(model.baseUrl ?? null, settingsOf(model)) || 'default settings' } : {}),
          };
          const key = canonicalJson(cell);
          let stored = existing.get(key);
          index += 1;
          if (stored && !store.hasAllTasks(stored.id)) {
            // Stopped while its tasks streamed in: it ran no episode yet (they start once every task is stored), and
            // without a recipe its tasks cannot be made again for a resume. Started again, it loses nothing.
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
            await resumeEvaluation({ ...options, runId: stored.id, suite, baseUrl: model.baseUrl, store, cliArgs: options.cliArgs });
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
          const tasks = firstRunId !== undefined ? store.iterateTasks(firstRunId) : streamGeneratedTasks(suite, {
            seed: evalSet.seed, count: plan.entry.count ?? evalSet.count, params, signal: options.signal, transforms: chain.requests,
          });
          let summary;
          try {
            summary = await runEvaluation({
              ...options, suite, tasks, modelRef: model.ref, baseUrl: model.baseUrl, mode: mode ?? undefined, trials: evalSet.trials,
              concurrency: evalSet.concurrency ?? options.concurrency, settings: settingsOf(model), seed: evalSet.seed, params: runParams,
              store, cliArgs: options.cliArgs,
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
