/**
 * webapi — WAPIIBench (shared/papers/wapiibench.txt): write the JavaScript (axios) that sends the
 * HTTP request a task describes, for a real OpenAPI spec. The program runs in the sandbox, its first
 * request is compared with the expected config argument by argument, and checked for legality
 * against the spec. See README.md.
 */
import { basename, extname } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import type { Environment } from '../../core/environment.ts';
import type { JsonObject } from '../../core/json.ts';
import { lastAssistantText } from '../../core/message.ts';
import type { Mode } from '../../core/mode.ts';
import type { Score, ScoreInput } from '../../core/score.ts';
import { datasetPath, hasDataset, missingDataError } from '../../core/data-location.ts';
import type { Task } from '../../core/task.ts';
import { loadOpenApiFile } from '../../openapi/load-openapi.ts';
import type { ProgramRun } from '../../core/program-host.ts';
import type { GenerateTasksRequest, StreamPosition } from '../spec.ts';
import { webapiBuiltinModels } from './builtin-models.ts';
import { argumentsOf } from './compare-request.ts';
import { rephraseTaskWithSource, streamSamples } from './generate-from-spec.ts';
import { parseWebapiParams, webapiKnobs } from './knobs.ts';
import { instructionSource } from './prompt.ts';
import type { WebapiParams } from './knobs.ts';
import { programOf, programOutcomeOf, webapiProgramHost } from './run-program.ts';
import { countableArgumentCount } from './sample-statistics.ts';
import { scoreWebapiOutcome } from './score-request.ts';
import type { WebapiDetails } from './webapi-details.ts';
import { webapiDetailsSchema } from './webapi-details.ts';
import { defineSuite } from '../define-suite.ts';
import { toPortablePath } from '../../core/portable-path.ts';
import { streamWapiibenchFile, wapiibenchApiNames } from './wapiibench-data.ts';
import { createWebapiAgent } from './webapi-agent.ts';
import { buildWebapiTask, readWebapiExpected, webapiExpectedSchema, webapiSuiteId, webapiSuiteVersion } from './webapi-task.ts';
import { summarizeWebapi } from './webapi-summary.ts';

export { scoreWebapiOutcome, scoreWebapiRequest } from './score-request.ts';
export type { ProgramOutcome } from './score-request.ts';
export { renderAxiosCall } from './render-axios.ts';
export { computeWebapiMetrics } from './webapi-metrics.ts';

/** The combined WAPIIBench file in the shared data (the default run's 395 tasks). */
export const wapiibenchDataPath = () => datasetPath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json');

/**
 * A webapi episode's world: no tools, a program host whose HTTP is recorded and answered as the
 * reference mock answers; the end state is the requests the program sent.
 */
function createWebapiEnvironment(task: Task): Environment {
  const expected = readWebapiExpected(task);
  const params = parseWebapiParams(task.params);
  let run: ProgramRun | undefined;
  return {
    listTools: () => [],
    callTool: async () => ({ ok: false, error: { code: 'tool.unknown', message: 'webapi tasks have no tools: answer with code' } }),
    bindings: () => webapiProgramHost(task.starter ?? '', expected.endpoint, params.executionTimeMs, (observed) => { run = observed; }),
    snapshotState: async () => ({ requests: run?.result ? run.result.requests : [] }),
    dispose: async () => undefined,
  };
}

async function generateWebapiTasks(request: GenerateTasksRequest): Promise<Task[]> {
  const tasks: Task[] = [];
  for await (const task of streamWebapiTasks(request)) tasks.push(task);
  return tasks;
}

/**
 * The tasks one at a time, from task `from` on: a task file's list is read item by item and a spec's samples are made
 * as they are needed, so a run of 100,000 tasks never holds them all (the samples before `from` are still made, not
 * their tasks: a spec's sample i depends on the ones before it).
 */
async function* streamWebapiTasks(request: GenerateTasksRequest, position: StreamPosition = {}): AsyncGenerator<Task> {
  const from = position.from ?? 0;
  const params = parseWebapiParams(request.params);
  const taskParams: JsonObject = { ...request.params };
  if (instructionSource() === 'toolforge') taskParams.instruction = 'toolforge';
  if (params.spec && !params.data) {
    yield* streamFromSpec(request, params, taskParams, from);
    return;
  }
  if (!params.data && !hasDataset('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json')) {
    throw missingDataError('wapiibench', "suite 'webapi' (its default tasks are the 395 WAPIIBench tasks)", {
      alternative: 'generate tasks from any OpenAPI file with --set spec=<file>, or import a task file with --set data=<file>',
    });
  }
  const dataPath = params.data ?? wapiibenchDataPath();
  if (params.data) taskParams.data = toPortablePath(params.data);
  if (params.spec) taskParams.spec = toPortablePath(params.spec);
  if (params.specs) taskParams.specs = toPortablePath(params.specs);
  // Checked before the next sample is read: an item past the count is never parsed (nor its error raised).
  const reachedCount = (index: number): boolean => request.count !== undefined && index >= request.count;
  let index = from;
  if (reachedCount(index)) return;
  for (const sample of streamWapiibenchFile(dataPath, { spec: params.spec ?? undefined, specs: params.specs ?? undefined }, from)) {
    index += 1;
    request.signal?.throwIfAborted();
    const document = await loadOpenApiFile(sample.specPath);
    const pathParameters = Object.keys(argumentsOf(document, sample.config).fields.path_params ?? {}).length;
    yield buildWebapiTask({
      id: `${webapiSuiteId}/${sample.api}/${sample.index}`,
      seed: request.seed,
      params: taskParams,
      api: sample.api,
      apiName: wapiibenchApiNames[sample.api] ?? sample.api,
      specReference: toPortablePath(sample.specPath),
      task: sample.task,
      config: sample.config,
      setup: params.setup,
      endpoint: params.endpoint,
      checks: sample.checks,
      stats: { method: sample.config.method, arguments: countableArgumentCount(sample.config, pathParameters) },
    });
    if (reachedCount(index)) return;
  }
}

async function* streamFromSpec(request: GenerateTasksRequest, params: WebapiParams, taskParams: JsonObject, from: number): AsyncGenerator<Task> {
  const specPath = params.spec as string;
  const document = await loadOpenApiFile(specPath);
  taskParams.spec = toPortablePath(specPath);
  if (params.phrasing === 'model' && !request.phrasingModel) {
    throw new ConfigError('config.invalid-knob', "suite 'webapi': phrasing=model needs a model to phrase the tasks", { fix: 'pass --phrasing-model <ref>, or use --set phrasing=template' });
  }
  const api = basename(specPath, extname(specPath)).replace(/[^A-Za-z0-9_.-]+/g, '_') || 'spec';
  const count = request.count ?? webapiSuite.defaultCount;
  let index = 0;
  for (const sample of streamSamples(document, { seed: request.seed, optionalProbability: params.optional })) {
    index += 1;
    if (index <= from) {
      if (index >= count) return;
      continue;
    }
    request.signal?.throwIfAborted();
    const phrased = params.phrasing === 'model' && request.phrasingModel ? await rephraseTaskWithSource(request.phrasingModel, sample, index - 1, request.signal) : undefined;
    const text = phrased?.text ?? sample.task;
    const pathParameters = Object.keys(argumentsOf(document, sample.config).fields.path_params ?? {}).length;
    yield buildWebapiTask({
      id: `${webapiSuiteId}/${api}/${request.seed}-${index - 1}`,
      seed: request.seed,
      params: taskParams,
      api,
      apiName: document.title,
      specReference: toPortablePath(specPath),
      task: text,
      config: sample.config,
      setup: params.setup,
      endpoint: params.endpoint,
      stats: {
        method: sample.config.method, template: sample.operation.template, arguments: countableArgumentCount(sample.config, pathParameters),
        ...(phrased ? { phrasing: phrased.source } : {}),
      },
    });
    if (index >= count) return;
  }
  if (index === 0) {
    throw new ConfigError('input.invalid', `OpenAPI spec '${specPath}' has no get/put/post/delete/patch operation whose arguments can be filled`, { fix: 'pass a spec with at least one usable operation' });
  }
}

async function scoreWebapi(input: ScoreInput & { mode: Mode }): Promise<Score<WebapiDetails>> {
  const { task } = input;
  const expected = readWebapiExpected(task);
  const answered = input.messages.some((message) => message.role === 'assistant');
  if (!answered && (input.termination === 'time-limit' || input.termination === 'max-turns')) {
    return scoreWebapiOutcome(task, { type: 'limit-exceeded', message: `the episode ended without an answer (${input.termination})` });
  }
  const run = input.calls.find((call) => call.type === 'program');
  if (!run) {
    // Only an episode that ended before its answer ran has none (e.g. cancelled mid-way).
    const program = programOf(task.starter ?? '', lastAssistantText(input.messages), expected.endpoint);
    const score = await scoreWebapiOutcome(task, { type: 'limit-exceeded', message: `the program never ran (${input.termination})` });
    return { ...score, details: { ...score.details, program } };
  }
  const score = await scoreWebapiOutcome(task, programOutcomeOf(run));
  return { ...score, details: { ...score.details, program: run.extraction.type === 'program' ? run.extraction.code : run.extraction.text } };
}

export const webapiSuite = defineSuite({
  id: webapiSuiteId,
  version: webapiSuiteVersion,
  expectedSchema: webapiExpectedSchema,
  detailsSchema: webapiDetailsSchema,
  title: 'WAPIIBench: web API integration code (axios) against real OpenAPI specs',
  description: 'Write the axios call that sends the request a task describes. The first request the program sends is compared with the expected configuration (URL, method, headers, query, path, body) and checked against the OpenAPI spec for illegal endpoints and arguments.',
  paper: 'wapiibench.txt',
  knobs: webapiKnobs,
  // No knob sets how hard an endpoint is; the expected request's statistics do (see README, difficulty axes).
  difficultyAxes: [
    { name: 'arguments', stat: 'arguments', description: 'arguments the request must carry (path, query, body, headers other than Accept/Content-Type)' },
    { name: 'method', stat: 'method', description: 'the HTTP method of the endpoint' },
  ],
  modes: ['code'],
  defaultCount: 50,
  generate: generateWebapiTasks,
  streamTasks: streamWebapiTasks,
  // WAPIIBench's tasks or a --set data= file; only spec= without data= generates.
  importsTasks: (params) => {
    const { spec, data } = parseWebapiParams(params);
    return !spec || Boolean(data);
  },
  // The runner checks the mode (src/runner/episode-mode.ts): only 'code' reaches here.
  async createEnvironment(task) {
    return createWebapiEnvironment(task);
  },
  createAgent(mode) {
    return mode === 'code' ? createWebapiAgent() : undefined;
  },
  score: scoreWebapi,
  summarize: summarizeWebapi,
  builtinModels: webapiBuiltinModels,
});
