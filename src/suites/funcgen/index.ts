/**
 * funcgen — FuncBenchGen (shared/papers/funcbenchgen.txt): reach a target variable by calling the
 * functions of a hidden dependency DAG, multi-turn; judged on the final value, with every call
 * classified by the paper's failure taxonomy. See README.md.
 */
import type { Mode } from '../../core/mode.ts';
import { ConfigError } from '../../core/errors.ts';
import { defineSuite } from '../define-suite.ts';
import type { GenerateTasksRequest, StreamPosition, Suite, TaskLine } from '../spec.ts';
import type { Task } from '../../core/task.ts';
import { funcgenBuiltinModels } from './builtin-models.ts';
import { FuncgenEnvironment } from './environment.ts';
import type { FuncgenDetails } from './funcgen-details.ts';
import { funcgenDetailsSchema } from './funcgen-details.ts';
import type { FuncgenExpected } from './funcgen-task.ts';
import { funcgenExpectedSchema, funcgenToolsProblem, readFuncgenTask } from './funcgen-task.ts';
import { funcgenKnobs, parseFuncgenParams } from './knobs.ts';
import type { FuncgenParams } from './knobs.ts';
import { scoreFuncgen } from './scorer.ts';
import { summarizeFuncgen } from './summary.ts';
import { funcgenSuiteId, funcgenVersion, generateFuncgenTask } from './task-generator.ts';
import { funcgenTaskLine } from './funcgen-task-line.ts';

const funcgenModes: readonly Mode[] = ['calls', 'react'];

function checkMode(mode: Mode): void {
  if (!funcgenModes.includes(mode)) {
    throw new ConfigError('config.unsupported-mode', `suite 'funcgen' does not support mode '${mode}'`, {
      fix: `use --mode ${funcgenModes.join(' or --mode ')}`,
    });
  }
}

/** What task i of the stream is made from: the seed, i and the knobs alone (so ranges can be made on threads). */
function* taskRequests(request: GenerateTasksRequest, position: StreamPosition): Generator<{ seed: number; index: number; params: FuncgenParams }> {
  const params = parseFuncgenParams(request.params);
  const count = request.count ?? funcgenSuite.defaultCount;
  for (let index = position.from ?? 0; index < count; index += 1) {
    request.signal?.throwIfAborted();
    yield { seed: request.seed, index, params };
  }
}

function* streamFuncgenTasks(request: GenerateTasksRequest, position: StreamPosition = {}): Generator<Task> {
  for (const taskRequest of taskRequests(request, position)) yield generateFuncgenTask(taskRequest);
}

function* streamFuncgenTaskLines(request: GenerateTasksRequest, position: StreamPosition = {}): Generator<TaskLine> {
  for (const taskRequest of taskRequests(request, position)) yield funcgenTaskLine(taskRequest);
}

export const funcgenSuite: Suite<FuncgenExpected, FuncgenDetails> = defineSuite({
  id: funcgenSuiteId,
  version: funcgenVersion,
  expectedSchema: funcgenExpectedSchema,
  detailsSchema: funcgenDetailsSchema,
  title: 'FuncBenchGen: multi-step calls over a hidden function dependency graph',
  description: 'Reach a target variable by calling functions linked by type and subtype; irrelevant connected and disconnected functions distract. Success rate, average calls, and per-call failure types.',
  paper: 'funcbenchgen.txt',
  knobs: funcgenKnobs,
  difficultyAxes: [
    { name: 'core', knob: 'core', stat: 'core', description: 'core functions: the minimum number of calls' },
    { name: 'depth', knob: 'depth', stat: 'depth', description: 'edges on the longest dependency path to the target' },
    { name: 'connected', knob: 'connected', stat: 'connected', description: 'irrelevant functions that consume core outputs' },
    { name: 'disconnected', knob: 'disconnected', stat: 'disconnected', description: 'irrelevant functions with no edge to the core' },
  ],
  modes: funcgenModes,
  defaultCount: 50,
  async generate(request) {
    return Array.from(streamFuncgenTasks(request));
  },
  // Each task is made from (seed, index) alone: a run of 100,000 tasks streams them instead of holding ~3 GB.
  streamTasks: streamFuncgenTasks,
  makesTasksByIndex: true,
  streamTaskLines: streamFuncgenTaskLines,
  verbatimNames(task) {
    const { expected } = readFuncgenTask(task);
    return [expected.target.variable, ...expected.inputs.map((input) => input.name), ...expected.functions.flatMap((fn) => [fn.output.name, ...fn.parameters.map((parameter) => parameter.name)])];
  },
  async createEnvironment(task, mode) {
    checkMode(mode);
    return new FuncgenEnvironment(readFuncgenTask(task), task.tools);
  },
  async score(input) {
    return scoreFuncgen(input);
  },
  summarize: summarizeFuncgen,
  builtinModels: funcgenBuiltinModels,
  taskProblem: funcgenToolsProblem,
});
