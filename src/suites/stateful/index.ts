/**
 * stateful — StateGen / StateEval (shared/papers/stategen-stateeval.txt, sections III and IV): write the JavaScript
 * program an instruction describes, a sequence of dependent, stateful API calls with one if/else, against a real
 * backend (session REST service, tensor library, voice-lab MCP server). The program runs once per test case on a
 * fresh backend; it passes only if RESULT and the end state match the reference's on every test case. See README.md.
 */
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Mode } from '../../core/mode.ts';
import type { Task } from '../../core/task.ts';
import type { ModelSource } from '../../models/spec.ts';
import { createSandbox } from '../../sandbox/index.ts';
import type { GenerateTasksRequest } from '../spec.ts';
import { translateWithAgents } from './agent-translation.ts';
import { statefulBuiltinModels } from './builtin-models.ts';
import { generateStatefulTasks, type StatefulTaskData } from './generate-stateful-tasks.ts';
import { programStatistics } from './program-statistics.ts';
import { scoreStateful, statefulScoreDetailsSchema } from './score-stateful.ts';
import { defineSuite } from '../define-suite.ts';
import { createStatefulEnvironment } from './stateful-environment.ts';
import { parseStatefulParams, statefulKnobs, type StatefulParams } from './stateful-knobs.ts';
import { summarizeStateful } from './stateful-summary.ts';
import { buildStatefulTask, statefulExpectedSchema, statefulSuiteId, statefulSuiteVersion } from './stateful-task.ts';
import { createVoiceCallsEnvironment, voiceCallsPrompt, voiceToolSpecs } from './voice/voice-calls.ts';
import { createGenericAgent } from '../../agents/registry.ts';
import type { Agent } from '../../agents/spec.ts';
import type { ToolSpec } from '../../core/tool.ts';

export { createStatefulEnvironment, extractStatefulProgram } from './stateful-environment.ts';
export { scoreStateful } from './score-stateful.ts';
export { summarizeStateful } from './stateful-summary.ts';

const defaultCount = 5;

async function generateStatefulSuiteTasks(request: GenerateTasksRequest): Promise<Task[]> {
  const params = parseStatefulParams(request.params);
  if (params.phrasing === 'model' && !request.phrasingModel) {
    throw new ConfigError('config.invalid-knob', "suite 'stateful': phrasing=model needs a model to phrase the instructions", { fix: 'pass --phrasing-model <ref>, or use --set phrasing=template' });
  }
  const count = request.count ?? defaultCount;
  const taskParams: JsonObject = { ...request.params };
  // The voice lab's tools also serve mode calls.
  const callsTools = params.scenario === 'voice' ? await voiceToolSpecs() : undefined;
  const sandbox = createSandbox();
  try {
    const generate = (total: number) => generateStatefulTasks({ scenario: params.scenario, seed: request.seed, count: total, calls: params.calls, branch: params.branch, coverage: params.coverage }, sandbox);
    if (params.phrasing === 'template') {
      const run = await generate(count);
      return run.tasks.map((data) => buildStatefulTask(data, request.seed, taskParams, { phrasing: 'template' }, callsTools));
    }
    return await phraseWithModel(request, params, count, generate, taskParams, callsTools);
  } finally {
    await sandbox.dispose();
  }
}

/**
 * The paper's generator/evaluator translation (III-E): only ok translations are kept, so programs are drawn until
 * `count` are phrased. A longer run of the same seed starts with the same programs, so the run only grows.
 */
async function phraseWithModel(
  request: GenerateTasksRequest, params: StatefulParams, count: number,
  generate: (total: number) => Promise<{ tasks: StatefulTaskData[] }>, taskParams: JsonObject, callsTools: ToolSpec[] | undefined,
): Promise<Task[]> {
  const source = request.phrasingModel as ModelSource;
  const tasks: Task[] = [];
  const dropped: string[] = [];
  let translated = 0;
  for (let total = count; tasks.length < count; total += count - tasks.length) {
    if (total > count * 3) {
      throw new ConfigError('config.invalid-knob', `suite 'stateful': the phrasing model gave an ok translation for only ${tasks.length} of ${translated} programs (${params.scenario}); last verdicts: ${dropped.slice(-3).join('; ')}`, {
        fix: 'use a stronger --phrasing-model, or --set phrasing=template',
      });
    }
    const run = await generate(total);
    for (const data of run.tasks.slice(translated)) {
      request.signal?.throwIfAborted();
      const model = source.forEpisode({ task: phrasingTask(data.id, request.seed), trial: 0, mode: 'code' });
      const translation = await translateWithAgents(data.program, { generator: model, evaluator: model }, { signal: request.signal });
      translated += 1;
      if (translation.verdict !== 'ok') {
        dropped.push(`${data.id}: ${translation.verdict} (${translation.diagnosis})`);
        continue;
      }
      if (tasks.length >= count) break;
      const phrased: StatefulTaskData = { ...data, instruction: translation.instruction, statistics: programStatistics(data.program, translation.instruction, data.referenceCode) };
      tasks.push(buildStatefulTask(phrased, request.seed, taskParams, { phrasing: 'model', phrasingRounds: translation.rounds }, callsTools));
    }
  }
  return tasks;
}

/** The phrasing calls are not episodes of any task; replay and built-in sources still want one to key on. */
function phrasingTask(id: string, seed: number): Task {
  return {
    schemaVersion: 1, id: `${id}/phrasing`, suite: { id: statefulSuiteId, version: statefulSuiteVersion }, seed, params: {}, prompt: [], tools: [],
    modes: ['code'], expected: null, limits: { maxTurns: 6, maxToolCalls: 1, timeLimitMs: 300_000 }, stats: {},
  };
}

/** Mode calls: the generic tool loop over the voice tools, prompted with the instructions and the variables' values. */
function createStatefulAgent(mode: Mode): Agent | undefined {
  if (mode !== 'calls') return undefined;
  const inner = createGenericAgent('calls');
  return { id: 'stateful-calls', mode, run: (task, context) => inner.run({ ...task, prompt: voiceCallsPrompt(task) }, context) };
}

export const statefulSuite = defineSuite({
  id: statefulSuiteId,
  version: statefulSuiteVersion,
  title: 'StateGen / StateEval: stateful, interdependent API calls in generated programs',
  description: 'Write the JavaScript program an instruction describes: dependent calls to a stateful backend (session REST service, tensor library or voice-lab MCP server) with one if/else. The program runs once per test case on a fresh backend and passes only if RESULT and the end state match the reference program\'s on every test case.',
  paper: 'stategen-stateeval.txt',
  knobs: statefulKnobs,
  // Mode calls: voice tasks only (their tools are the voice lab's MCP server's); the runner refuses it for others.
  modes: ['code', 'calls'],
  defaultCount,
  expectedSchema: statefulExpectedSchema,
  detailsSchema: statefulScoreDetailsSchema,
  generate: generateStatefulSuiteTasks,
  async createEnvironment(task, mode) {
    return mode === 'calls' ? createVoiceCallsEnvironment() : createStatefulEnvironment(task);
  },
  createAgent: createStatefulAgent,
  score: scoreStateful,
  summarize: summarizeStateful,
  builtinModels: statefulBuiltinModels,
});
