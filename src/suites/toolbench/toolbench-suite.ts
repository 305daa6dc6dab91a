/**
 * toolbench: StableToolBench's solvable queries (the base benchmark of DynamicToolBench) run against
 * a virtual API (persistent response cache, then a simulator: the seeded template simulator offline,
 * or an LLM playing the API server), in calls or react mode with a step cap, scored structurally
 * or, with a judge model, by StableToolBench's Solvable Pass Rate. Drift and query perturbations
 * come from transforms (`--transform`), which this suite supports by reading what the environment
 * recorded and keeping its oracle's calls in `expected`.
 */
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cacheDataDirectory, hasDataset, missingDataError } from '../../core/data-location.ts';
import { ConfigError } from '../../core/errors.ts';
import { fileProblem } from '../../core/file-problem.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Mode } from '../../core/mode.ts';
import type { Score, ScoreInput } from '../../core/score.ts';
import type { Task } from '../../core/task.ts';
import type { BaseUrlFlag } from '../../models/registry.ts';
import { missingBaseUrlError, parseModelReference } from '../../models/registry.ts';
import type { HelperModels } from '../../models/helper-models.ts';
import { defaultHelperModels } from '../../models/helper-models.ts';
import type { EpisodeServices, GenerateTasksRequest, StreamPosition } from '../spec.ts';
import type { Knob } from '../knob.ts';
import { toolbenchBuiltinModels } from './builtin-models.ts';
import type { EvaluatorPrompts } from './evaluator-prompts.ts';
import { evaluatorTemplatePath, loadEvaluatorPrompts } from './evaluator-prompts.ts';
import { createModelJudge } from './model-judge.ts';
import { createModelSimulator } from './model-simulator.ts';
import type { ResponseCache } from './response-cache.ts';
import { createFileResponseCache, createMemoryResponseCache } from './response-cache.ts';
import type { QueryGroup } from './stabletoolbench-data.ts';
import { queryGroups, solvableQueriesPath, streamSolvableQueries } from './stabletoolbench-data.ts';
import { createToolbenchEnvironment } from './toolbench-environment.ts';
import type { ToolbenchDetails } from './toolbench-score.ts';
import { scoreToolbenchEpisode, toolbenchDetailsSchema } from './toolbench-score.ts';
import { defineSuite } from '../define-suite.ts';
import { summarizeToolbench } from './toolbench-summary.ts';
import { createVirtualApi } from './virtual-api.ts';
import { buildToolbenchTask, expectedSchema, toolbenchExpected, toolbenchSuiteId, toolbenchSuiteVersion } from './toolbench-task.ts';

export const templateSimulator = 'template';

const knobs: readonly Knob[] = [
  { type: 'enum', name: 'group', description: 'StableToolBench query group (153/163/158/124/106/61 queries), or all 765', default: 'all', values: [...queryGroups, 'all'] },
  { type: 'string', name: 'data', description: 'a solvable-queries JSON file in StableToolBench\'s format instead of the data set\'s group files (its group: the group knob, else the file name)', default: null, path: 'file' },
  { type: 'string', name: 'simulator', description: '`template` (seeded, offline, deterministic) or a model ref that plays the API server (reference 5.4 prompt; answers kept in the response cache)', default: templateSimulator },
  { type: 'string', name: 'simulator-base-url', description: 'endpoint of the simulator model (openai-compatible servers)', default: null },
  { type: 'string', name: 'cache', description: 'response and verdict cache directory; unset: in memory for the template simulator, ~/.cache/toolforge/toolbench when a model simulates or judges', default: null, path: 'created-folder' },
  { type: 'string', name: 'judge', description: 'a model ref judging each answer with the StableToolBench evaluator prompts (Solvable Pass Rate); unset: structural scoring, marked unjudged', default: null },
  { type: 'integer', name: 'judge-times', description: 'judge runs per answer (pass rate reported as mean ± std over runs)', default: 3, min: 1, max: 10 },
  { type: 'string', name: 'judge-base-url', description: 'endpoint of the judge model (openai-compatible servers)', default: null },
  { type: 'string', name: 'judge-template', description: 'the evaluator template.txt; unset: the stabletoolbench data set\'s', default: null, path: 'file' },
];

function stringKnob(params: JsonObject, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function defaultCacheDirectory(): string {
  return join(dirname(cacheDataDirectory()), 'toolbench');
}

/** How the user gives a helper model's endpoint: its own knob, never the tested model's --base-url. */
function baseUrlFlag(knob: 'simulator' | 'judge'): BaseUrlFlag {
  return { name: `--set ${knob}-base-url`, example: (url) => `--set ${knob}-base-url=${url}` };
}

/**
 * A simulator or judge reference, checked when the tasks are made, before a run is recorded. The knobs are stored
 * in the tasks, so `--resume` could not fix a built-in model or a missing server address found at the first episode.
 * A missing API key is found there, and is fixed by exporting it and resuming. Tasks may be made where the key is not.
 */
function checkModelRef(knob: 'simulator' | 'judge', ref: string, baseUrl: string | undefined): void {
  const reference = parseModelReference(ref);
  if (reference.provider === 'builtin') {
    throw new ConfigError('config.invalid-knob', `toolbench knob '${knob}' needs a network or replay model, got '${ref}'`, {
      fix: `--set ${knob}=<provider/model>, e.g. openai/gpt-4.1${knob === 'simulator' ? `, or --set simulator=${templateSimulator}` : ''}`,
    });
  }
  if (reference.provider === 'openai-compatible' && baseUrl === undefined) {
    throw missingBaseUrlError(ref, baseUrlFlag(knob), 'config.invalid-knob', `toolbench knob '${knob}': `);
  }
}

/** `--set cache=<folder>`, checked when the tasks are made: a file there would fail every episode's first call. */
function checkCacheFolder(path: string): void {
  let problem: string | undefined;
  try {
    if (!statSync(path).isDirectory()) problem = 'it is a file, not a folder';
  } catch (error) {
    // A folder that does not exist yet is made with the first answer.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problem = fileProblem(path, error);
  }
  if (problem !== undefined) {
    throw new ConfigError('config.invalid-knob', `toolbench knob 'cache' is '${path}': ${problem}`, {
      fix: '--set cache=<folder> names the folder that keeps simulated responses and judge verdicts (it is made if missing)',
    });
  }
}

/** The judge's evaluator prompts: `judge-template`, else the StableToolBench data's. */
function judgePrompts(params: JsonObject): EvaluatorPrompts {
  const templatePath = stringKnob(params, 'judge-template');
  if (templatePath === undefined && !hasDataset('stabletoolbench', 'toolbench', 'tooleval')) {
    throw missingDataError('stabletoolbench', 'the toolbench judge (evaluator prompts)', { alternative: 'pass the evaluator prompts with --set judge-template=<template.txt>' });
  }
  return loadEvaluatorPrompts(templatePath ?? evaluatorTemplatePath());
}

/**
 * The knobs an episode uses on this machine (helper models and their servers, the judge template, the cache folder),
 * checked when tasks are made and when a run reads a tasks file: stored in the tasks, they cannot be fixed by
 * `--resume` once a run is recorded.
 */
function checkTaskParams(params: JsonObject): void {
  const simulator = stringKnob(params, 'simulator') ?? templateSimulator;
  if (simulator !== templateSimulator) checkModelRef('simulator', simulator, stringKnob(params, 'simulator-base-url'));
  const judge = stringKnob(params, 'judge');
  if (judge !== undefined) {
    checkModelRef('judge', judge, stringKnob(params, 'judge-base-url'));
    // Read here too: a missing or malformed template is found before a run is recorded, not at its first score.
    judgePrompts(params);
  }
  const cache = stringKnob(params, 'cache');
  if (cache !== undefined) checkCacheFolder(cache);
}

async function generate(request: GenerateTasksRequest): Promise<Task[]> {
  const tasks: Task[] = [];
  for await (const task of streamTasks(request)) tasks.push(task);
  return tasks;
}

/**
 * The tasks one at a time, from task `from` on: each query file is read item by item, and nothing past `--count` is
 * read (the queries before `from` are read, not made into tasks).
 */
async function* streamTasks(request: GenerateTasksRequest, position: StreamPosition = {}): AsyncGenerator<Task> {
  const { params, seed } = request;
  const group = String(params.group ?? 'all');
  const simulator = stringKnob(params, 'simulator') ?? templateSimulator;
  checkTaskParams(params);
  const data = stringKnob(params, 'data');
  let files: [path: string, group: string][];
  if (data !== undefined) {
    files = [[data, group === 'all' ? basename(data).replace(/\.json$/, '') : group]];
  } else {
    const groups: readonly QueryGroup[] = group === 'all' ? queryGroups : [group as QueryGroup];
    for (const name of groups) {
      if (!hasDataset('stabletoolbench', 'solvable_queries', 'test_instruction', `${name}.json`)) {
        throw missingDataError('stabletoolbench', `suite 'toolbench' (group ${name})`, { alternative: 'pass a solvable-queries file with --set data=<file.json>' });
      }
    }
    files = groups.map((name) => [solvableQueriesPath(name), name]);
  }
  const taskParams: JsonObject = { ...params, simulator };
  const from = position.from ?? 0;
  const reachedCount = (index: number): boolean => request.count !== undefined && index >= request.count;
  let index = 0;
  if (reachedCount(index)) return;
  for (const [path, name] of files) {
    for (const query of streamSolvableQueries(path, name)) {
      index += 1;
      if (index > from) yield buildToolbenchTask(query, { seed, params: taskParams });
      if (reachedCount(index)) return;
    }
  }
}

/** One cache per directory in a process, so concurrent episodes never overwrite each other's entries. */
const fileCaches = new Map<string, ResponseCache>();
function fileCache(directory: string): ResponseCache {
  let cache = fileCaches.get(directory);
  if (!cache) {
    cache = createFileResponseCache(directory);
    fileCaches.set(directory, cache);
  }
  return cache;
}

/** The episode's helper models: the runner's (retried on the run's policy), or the defaults outside a run. */
function helperModels(models: HelperModels | undefined, task: Task, mode: Mode): HelperModels {
  return models ?? defaultHelperModels({ task, trial: 0, mode });
}

async function createEnvironment(task: Task, mode: Mode, services?: EpisodeServices) {
  const { apis } = toolbenchExpected(task);
  const simulator = stringKnob(task.params, 'simulator') ?? templateSimulator;
  const directory = stringKnob(task.params, 'cache');
  if (simulator === templateSimulator) {
    // The template simulator is a pure function of seed, API and arguments: a cache only persists it.
    const cache = directory !== undefined ? fileCache(directory) : createMemoryResponseCache();
    return createToolbenchEnvironment(apis, createVirtualApi({ cache, seed: task.seed }));
  }
  const model = helperModels(services?.models, task, mode).model(simulator, { baseUrl: stringKnob(task.params, 'simulator-base-url'), baseUrlFlag: baseUrlFlag('simulator') });
  const cache = fileCache(directory ?? defaultCacheDirectory());
  return createToolbenchEnvironment(apis, createVirtualApi({ cache, seed: task.seed, simulator: createModelSimulator(model, apis, new AbortController().signal) }));
}

async function score(input: ScoreInput & { mode: Mode; models?: HelperModels }): Promise<Score<ToolbenchDetails>> {
  const { task } = input;
  const group = toolbenchExpected(task).group;
  const judgeRef = stringKnob(task.params, 'judge');
  if (judgeRef === undefined) return scoreToolbenchEpisode(input, group, undefined);
  const prompts = judgePrompts(task.params);
  const model = helperModels(input.models, task, input.mode).model(judgeRef, { baseUrl: stringKnob(task.params, 'judge-base-url'), baseUrlFlag: baseUrlFlag('judge') });
  const cache = fileCache(stringKnob(task.params, 'cache') ?? defaultCacheDirectory());
  const times = typeof task.params['judge-times'] === 'number' ? task.params['judge-times'] : 3;
  const judges = Array.from({ length: times }, (_, run) => createModelJudge({ model, judgeRef, prompts, cache, run, signal: input.signal }));
  return scoreToolbenchEpisode(input, group, { judges });
}

export const toolbenchSuite = defineSuite({
  id: toolbenchSuiteId,
  version: toolbenchSuiteVersion,
  expectedSchema,
  detailsSchema: toolbenchDetailsSchema,
  title: 'StableToolBench solvable queries (DynamicToolBench base)',
  description: 'Answer real RapidAPI-style queries by calling their APIs through a virtual API server (response cache, then a seeded template simulator or an LLM simulator) and finishing with an answer; scored by StableToolBench\'s Solvable Pass Rate with --set judge=<model>, else structurally (unjudged). Needs the stabletoolbench data (or --set data=<file>).',
  paper: 'dynamic-toolbench.txt',
  knobs,
  difficultyAxes: [
    { name: 'group', knob: 'group', description: 'query group: G1 single tool, G2 intra-category multi-tool, G3 intra-collection multi-tool' },
    { name: 'relevant APIs', stat: 'relevantApis', description: 'APIs the query was recorded as needing' },
  ],
  modes: ['calls', 'react'],
  defaultCount: 765,
  generate,
  streamTasks,
  // Every task is one of StableToolBench's solvable queries (or a --set data= file of them).
  importsTasks: () => true,
  checkTaskParams,
  createEnvironment,
  score,
  summarize: summarizeToolbench,
  builtinModels: toolbenchBuiltinModels,
});
