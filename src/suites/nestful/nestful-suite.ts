/**
 * NESTFUL (nested sequences of API calls): import the published data or generate fresh math DAGs, run
 * a model in sequence (one-shot JSON list with labels), calls or react mode, and score with the
 * official metrics: F1 function/parameter, partial and full sequence accuracy, win rate by execution.
 */
import type { Agent } from '../../agents/spec.ts';
import { createGenericAgent } from '../../agents/registry.ts';
import { missingDataError } from '../../core/data-location.ts';
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { lastAssistantText } from '../../core/message.ts';
import type { Mode } from '../../core/mode.ts';
import type { Score, ScoreInput } from '../../core/score.ts';
import type { Task } from '../../core/task.ts';
import type { Termination } from '../../core/termination.ts';
import type { GenerateTasksRequest, ScoredEpisodes, StreamPosition, Suite, SuiteSummary } from '../spec.ts';
import type { Knob } from '../knob.ts';
import { defineSuite } from '../define-suite.ts';
import { nestfulBuiltinModels } from './builtin-models.ts';
import type { SampleEvaluation } from './evaluate-sample.ts';
import { evaluatePrediction, sampleEvaluationSchema } from './evaluate-sample.ts';
import type { ExecutionOutcome } from './execute-calls.ts';
import { generateSample, maximumFanIn } from './generate-samples.ts';
import { streamNestfulSamples } from './import-samples.ts';
import { createNestfulEnvironment, loggedCalls } from './nestful-environment.ts';
import { aggregateEvaluations, flattenMetrics, metricsTables } from './nestful-metrics.ts';
import { iclExamples, instructionSource, interactivePrompt } from './nestful-prompt.ts';
import type { NestfulTool } from './nestful-sample.ts';
import { groundResultValues } from './ground-result-values.ts';
import type { NestfulExpected } from './nestful-task.ts';
import { buildNestfulTask, expectedSchema, nestfulExpected, nestfulSuiteId, nestfulSuiteVersion, referenceOf } from './nestful-task.ts';
import { phraseWithModel } from './phrase-with-model.ts';
import type { Phrasing } from './phrase-with-model.ts';

const knobs: readonly Knob[] = [
  { type: 'string', name: 'data', description: 'a NESTFUL data file to import (v2 JSON list/JSONL or v1); unset = generate fresh samples', default: null, path: 'file' },
  {
    type: 'enum', name: 'icl', default: 'auto', values: ['auto', '0', '1', '3'],
    description: 'in-context examples in the sequence prompt, from the data\'s src/icl_examples.json: auto = 3 when that file is on this machine, else 0 (each task\'s params.icl records the number used)',
  },
  { type: 'integer', name: 'calls', description: 'generator: calls per sample', default: 4, min: 1, max: 20 },
  { type: 'integer', name: 'depth', description: 'generator: edges on the longest dependency path (at most calls - 1)', default: 2, min: 0, max: 19 },
  { type: 'integer', name: 'fanin', description: 'generator: most earlier outputs feeding one call', default: 2, min: 1, max: maximumFanIn },
  { type: 'integer', name: 'distractors', description: 'generator: extra tools offered beside the gold ones', default: 4, min: 0, max: 40 },
  { type: 'enum', name: 'phrasing', description: 'generator: question text rendered from the DAG, or rewritten by --phrasing-model', default: 'template', values: ['template', 'model'] },
];

function numberKnob(params: JsonObject, name: string): number {
  const value = params[name];
  if (typeof value !== 'number') throw new ConfigError('config.invalid-knob', `nestful knob '${name}' must be a number`, { fix: `--set ${name}=<integer>` });
  return value;
}

async function generate(request: GenerateTasksRequest): Promise<Task[]> {
  const tasks: Task[] = [];
  for await (const task of streamTasks(request)) tasks.push(task);
  return tasks;
}

/** Imported samples are read from the file one at a time (JSONL line by line); generated ones made one at a time. */
async function* streamTasks(request: GenerateTasksRequest, position: StreamPosition = {}): AsyncGenerator<Task> {
  const { params, seed } = request;
  const from = position.from ?? 0;
  const { iclCount, promptParams } = sequencePromptKnobs(params.icl);
  const data = params.data;
  if (typeof data === 'string' && data !== '') {
    // Checked before the next sample is read: a sample past the count is never parsed (nor its error raised).
    const reachedCount = (index: number): boolean => request.count !== undefined && index >= request.count;
    let index = from;
    if (reachedCount(index)) return;
    for (const sample of streamNestfulSamples(data, from)) {
      index += 1;
      yield buildNestfulTask(sample, { id: `${nestfulSuiteId}/${sample.sampleId}`, seed, params: { data, ...promptParams }, iclCount });
      if (reachedCount(index)) return;
    }
    return;
  }
  const generatorKnobs = {
    calls: numberKnob(params, 'calls'), depth: numberKnob(params, 'depth'),
    fanin: numberKnob(params, 'fanin'), distractors: numberKnob(params, 'distractors'),
  };
  const count = request.count ?? nestfulSuite.defaultCount;
  for (let index = from; index < count; index += 1) {
    const { sample } = generateSample(seed, index, generatorKnobs);
    let phrasing: Phrasing['source'] | undefined;
    if (params.phrasing === 'model') {
      if (!request.phrasingModel) {
        throw new ConfigError('config.invalid-knob', "nestful knob 'phrasing=model' needs a model to write the questions", {
          fix: 'pass --phrasing-model <provider/model> (library: GenerateTasksRequest.phrasingModel), or use --set phrasing=template',
        });
      }
      const phrased = await phraseWithModel(request.phrasingModel, sample.input, request.signal);
      sample.input = phrased.text;
      phrasing = phrased.source;
    }
    const task = buildNestfulTask(sample, {
      id: `${nestfulSuiteId}/${seed}/${index}`, seed, params: { ...generatorKnobs, ...promptParams, phrasing: String(params.phrasing ?? 'template') }, iclCount,
    });
    // Counted by the run summary (phrasingFallbacks), so a model that rarely keeps the numbers shows.
    if (phrasing) task.stats.phrasing = phrasing;
    yield task;
  }
}

/**
 * The sequence prompt's in-context examples and instruction on this machine, as the task records them. Without the
 * data set the same seed gives another prompt (our instruction, no examples), so the task says so: `icl` is the
 * number of examples it holds and `instruction: 'toolforge'` marks our wording. Examples asked for by number that
 * are not here are refused rather than left out.
 */
function sequencePromptKnobs(icl: JsonObject[string]): { iclCount: number; promptParams: JsonObject } {
  const available = iclExamples().length;
  const requested = icl === undefined || icl === null || icl === 'auto' ? 'auto' : Number(icl);
  if (requested !== 'auto' && requested > available) {
    const what = `nestful knob 'icl=${requested}' (in-context examples from the data's src/icl_examples.json)`;
    if (available === 0) throw missingDataError('nestful', what, { alternative: 'use --set icl=0, or leave icl unset (auto: the examples when they are on this machine, else none)' });
    throw new ConfigError('config.invalid-knob', `${what} asks for ${requested} examples; that file holds ${available}`, { fix: `use --set icl=${available} or fewer` });
  }
  const iclCount = requested === 'auto' ? Math.min(3, available) : requested;
  return { iclCount, promptParams: { icl: String(iclCount), ...(instructionSource() === 'toolforge' ? { instruction: 'toolforge' } : {}) } };
}

const limitTerminations: readonly Termination[] = ['max-turns', 'max-tool-calls', 'time-limit'];

/** Calls and react modes: the calls that ran are the prediction; the last successful result is the answer. */
function evaluateInteractive(task: Task, input: ScoreInput): SampleEvaluation {
  const log = loggedCalls(input.finalState);
  const succeeded = log.filter((call) => call.ok);
  const tools = referenceOf(task).tools;
  const question = [...task.prompt].reverse().find((message) => message.role === 'user')?.content ?? '';
  const calls = groundResultValues(succeeded.map((call) => ({
    ...call, output: Object.keys(tools.find((tool) => tool.name === call.name)?.output_parameters ?? {})[0] ?? 'result',
  })), question);
  const last = succeeded[succeeded.length - 1];
  const lastFailure = [...log].reverse().find((call) => !call.ok);
  let outcome: ExecutionOutcome;
  if (last) outcome = { ok: true, answer: last.result };
  else if (lastFailure && !lastFailure.ok) {
    const code = lastFailure.error.code;
    outcome = { ok: false, failure: { code: code === 'tool.unknown' || code === 'arguments.invalid' ? code : 'execution.error', message: lastFailure.error.message } };
  } else outcome = { ok: false, failure: { code: 'execution.error', message: 'the model made no tool call' } };
  const evaluation = evaluatePrediction(referenceOf(task), { type: 'executed', calls, outcome });
  if (!evaluation.win) {
    if (input.termination === 'output-unparsable') evaluation.failure = 'output.unparsable';
    else if (limitTerminations.includes(input.termination)) evaluation.failure = 'limit.exceeded';
    else if (log.length === 0) { evaluation.failure = 'result.wrong'; evaluation.reason = 'the model answered without calling a tool'; }
  }
  return evaluation;
}

async function score(input: ScoreInput & { mode: Mode }): Promise<Score<SampleEvaluation>> {
  const { task, mode } = input;
  const evaluation = mode === 'calls' || mode === 'react'
    ? evaluateInteractive(task, input)
    : evaluatePrediction(referenceOf(task), { type: 'text', text: lastAssistantText(input.messages) });
  const passed = evaluation.executable ? evaluation.win : evaluation.fullMatch;
  const result: Score<SampleEvaluation> = {
    value: evaluation.executable ? (evaluation.win ? 1 : 0) : evaluation.partialAccuracy,
    passed,
    reason: evaluation.reason,
    details: evaluation,
  };
  if (!passed) result.failure = evaluation.failure ?? 'result.wrong';
  return result;
}

function* evaluationsOf(episodes: ScoredEpisodes<SampleEvaluation>): Generator<SampleEvaluation> {
  // defineSuite checked every episode's details against sampleEvaluationSchema.
  for (const episode of episodes) if (episode.score.details) yield episode.score.details;
}

function summarize(episodes: ScoredEpisodes<SampleEvaluation>): SuiteSummary {
  const metrics = aggregateEvaluations(evaluationsOf(episodes));
  return { metrics: flattenMetrics(metrics), tables: metricsTables(metrics) };
}

function createAgent(mode: Mode): Agent | undefined {
  if (mode !== 'calls' && mode !== 'react') return undefined;
  const inner = createGenericAgent(mode);
  return {
    id: `nestful-${inner.id}`,
    mode,
    run: (task, context) => inner.run({ ...task, prompt: interactivePrompt(task.prompt) }, context),
  };
}

export const nestfulSuite: Suite<NestfulExpected, SampleEvaluation> = defineSuite({
  id: nestfulSuiteId,
  version: nestfulSuiteVersion,
  expectedSchema,
  detailsSchema: sampleEvaluationSchema,
  title: 'NESTFUL: nested sequences of API calls',
  description: 'Emit or execute a nested sequence of calls whose outputs feed later calls; scored by F1 function/parameter, partial/full sequence accuracy and win rate (execution). Imports the published data (--set data=) or generates fresh math DAGs.',
  paper: 'nestful.txt',
  knobs,
  // Generated tasks carry the knobs; imported data only the statistics of its gold sequence.
  difficultyAxes: [
    { name: 'calls', knob: 'calls', stat: 'calls', description: 'calls in the gold sequence' },
    { name: 'depth', knob: 'depth', stat: 'depth', description: 'edges on the longest dependency path of the gold sequence' },
    { name: 'fanin', knob: 'fanin', stat: 'maxFanIn', description: 'most earlier outputs feeding one call' },
  ],
  modes: ['sequence', 'calls', 'react'],
  defaultCount: 50,
  generate,
  streamTasks,
  importsTasks: (params) => typeof params.data === 'string' && params.data !== '',
  async createEnvironment(task: Task) {
    const expected = nestfulExpected(task);
    return createNestfulEnvironment(expected.tools as NestfulTool[], task.tools);
  },
  createAgent,
  score,
  summarize,
  builtinModels: nestfulBuiltinModels,
});
