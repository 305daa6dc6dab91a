import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, ToolForgeError } from '../../../src/core/errors.ts';
import type { JsonObject } from '../../../src/core/json.ts';
import type { Mode } from '../../../src/core/mode.ts';
import type { Task } from '../../../src/core/task.ts';
import type { PolicyStep } from '../../../src/models/builtin/scripted-model.ts';
import { createScriptedModel } from '../../../src/models/builtin/scripted-model.ts';
import type { ModelSource } from '../../../src/models/spec.ts';
import { generateTasks } from '../../../src/runner/generate-tasks.ts';
import { runEpisode } from '../../../src/runner/run-episode.ts';
import { runEvaluation } from '../../../src/runner/run-evaluation.ts';
import { rescoreRun } from '../../../src/runner/rescore-run.ts';
import { openResultsStore } from '../../../src/store/results-store.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { getTransform } from '../../../src/transforms/registry.ts';
import { startOpenAIFakeServer } from '../../fakes/openai-server.ts';
import type { FakeReply } from '../../fakes/fake-reply.ts';
import { fixturePath, requireData } from '../../require-data.ts';
import { queryGroups } from '../../../src/suites/toolbench/stabletoolbench-data.ts';
import type { ToolbenchDetails } from '../../../src/suites/toolbench/toolbench-score.ts';
import { passRatesPerJudgeRun, summarizeToolbench } from '../../../src/suites/toolbench/toolbench-summary.ts';
import { toolbenchSuite } from '../../../src/suites/toolbench/toolbench-suite.ts';
import { toolbenchExpected } from '../../../src/suites/toolbench/toolbench-task.ts';

const fixtureQueries = fixturePath('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_instruction.json');
const fixtureTemplate = fixturePath('stabletoolbench', 'toolbench', 'tooleval', 'evaluators', 'tooleval_gpt-3.5-turbo_default', 'template.txt');
const noData = requireData('stabletoolbench', 'solvable_queries', 'test_instruction');

async function fixtureTasks(extra: Record<string, string> = {}, count?: number): Promise<Task[]> {
  const params = resolveKnobs('toolbench', toolbenchSuite.knobs, { data: fixtureQueries, ...extra });
  return generateTasks(toolbenchSuite, { seed: 4, count, params, validate: false });
}

function scripted(steps: (state: { history: readonly unknown[] }) => PolicyStep, mode: Mode = 'calls'): ModelSource {
  return { ref: 'test/scripted', forEpisode: () => createScriptedModel({ modelId: 'scripted', mode, policy: (state) => steps(state) }) };
}

const finish = (answer: string): PolicyStep => ({ type: 'calls', calls: [{ name: 'Finish', arguments: { return_type: 'give_answer', final_answer: answer } }] });

describe('toolbench suite: tasks and data', () => {
  test('fixture queries become tasks: query in the prompt, Finish last, the oracle chain by exposed names', async () => {
    const tasks = await fixtureTasks();
    assert.deepEqual(tasks.map((task) => task.id), ['toolbench/G1_instruction/901', 'toolbench/G1_instruction/902', 'toolbench/G1_instruction/903', 'toolbench/G1_instruction/904']);
    const [museums] = tasks;
    assert.equal(museums.query, 'I am in Lisbon tomorrow: which museums are open, and will it rain?');
    assert.equal(museums.prompt.at(-1)?.content, museums.query);
    assert.deepEqual(museums.tools.map((tool) => tool.name), ['museums_for_cityguide', 'weather_for_cityguide', 'Finish']);
    assert.deepEqual(toolbenchExpected(museums).chain, [
      { name: 'museums_for_cityguide', arguments: { city: 'Lisbon' } },
      { name: 'weather_for_cityguide', arguments: { city: 'Lisbon' } },
    ]);
    assert.deepEqual(toolbenchExpected(tasks[2]).chain[1], { name: 'recipe_for_recipe_box', arguments: { id: 12 } });
    assert.deepEqual(museums.modes, ['calls', 'react']);
    assert.equal(museums.limits.maxToolCalls, 13);
  });

  test('without the data set: a ConfigError naming `toolforge data fetch stabletoolbench`', async () => {
    const previous = process.env.TOOLFORGE_DATA;
    process.env.TOOLFORGE_DATA = mkdtempSync(join(tmpdir(), 'toolbench-nodata-'));
    try {
      const params = resolveKnobs('toolbench', toolbenchSuite.knobs, { group: 'G2_category' });
      await assert.rejects(generateTasks(toolbenchSuite, { seed: 1, count: 2, params, validate: false }),
        (error: unknown) => error instanceof ConfigError && error.code === 'data.missing' && /toolforge data fetch stabletoolbench/.test(error.message) && /G2_category/.test(error.message));
    } finally {
      if (previous === undefined) delete process.env.TOOLFORGE_DATA;
      else process.env.TOOLFORGE_DATA = previous;
    }
  });

  test('bad knobs: a builtin judge or simulator, judge-times out of range', async () => {
    await assert.rejects(fixtureTasks({ judge: 'builtin/oracle' }), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob');
    await assert.rejects(fixtureTasks({ simulator: 'nonsense' }), (error: unknown) => error instanceof ConfigError && error.code === 'config.unknown-model');
    // A helper's server address is stored in the tasks, so its absence is found when they are made, naming its own knob
    // (never --base-url, the tested model's); a key is the machine's, found at the first episode: tasks are made without it.
    for (const knob of ['simulator', 'judge']) {
      await assert.rejects(fixtureTasks({ [knob]: 'openai-compatible/helper' }), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob'
        && error.message.includes(`needs --set ${knob}-base-url`) && (error.fix ?? '').includes(`--set ${knob}-base-url=http://`) && !error.message.includes('--base-url:'));
    }
    // So is the judge's evaluator template: a missing one is found when the tasks are made, not at the first score.
    await assert.rejects(fixtureTasks({ judge: 'openai/gpt-4.1', 'judge-template': join(tmpdir(), 'no-such-template.txt') }), (error: unknown) =>
      error instanceof ConfigError && error.code === 'input.unreadable' && /cannot read the evaluator template '.*no-such-template\.txt': no such file/.test(error.message));
    // And the cache folder: a file there (or on the way there) would fail every episode's first call.
    const file = join(mkdtempSync(join(tmpdir(), 'toolbench-cache-knob-')), 'a-file');
    writeFileSync(file, '');
    for (const [cache, problem] of [[file, /it is a file, not a folder/], [join(file, 'sub'), /a part of the path is a file/]] as const) {
      await assert.rejects(fixtureTasks({ cache }), (error: unknown) => error instanceof ConfigError && error.code === 'config.invalid-knob'
        && error.message.startsWith(`toolbench knob 'cache' is '${cache}'`) && problem.test(error.message));
    }
    const previousKey = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      assert.equal((await fixtureTasks({ judge: 'openai/gpt-4.1', 'judge-template': fixtureTemplate }, 1)).length, 1);
      const [task] = await fixtureTasks({ simulator: 'openai/gpt-4.1' }, 1);
      await assert.rejects(toolbenchSuite.createEnvironment(task, 'calls'), (error: unknown) => error instanceof ConfigError && error.code === 'config.missing-api-key'
        && /openai-compatible\/<model> with --set simulator-base-url=<url>/.test(error.fix ?? ''));
    } finally {
      if (previousKey !== undefined) process.env.OPENAI_API_KEY = previousKey;
    }
    assert.throws(() => resolveKnobs('toolbench', toolbenchSuite.knobs, { 'judge-times': '0' }), (error: unknown) => error instanceof ConfigError);
    assert.throws(() => resolveKnobs('toolbench', toolbenchSuite.knobs, { group: 'G4' }), (error: unknown) => error instanceof ConfigError);
  });

  test('tasks that come with their knobs (a tasks file) are checked as they enter a run: refused, naming the task, and no run is kept', async () => {
    const made = await fixtureTasks({ judge: 'openai-compatible/judge-model', 'judge-base-url': 'http://127.0.0.1:9/v1', 'judge-template': fixtureTemplate }, 3);
    const withParams = (task: Task, change: JsonObject): Task => ({ ...task, params: { ...task.params, ...change } });
    const noAddress = made.map((task) => withParams(task, { 'judge-base-url': null }));
    // The first task's knobs, and then a later task's that differ from the ones before it.
    const laterMissingTemplate = made.map((task, index) => index === 2 ? withParams(task, { 'judge-template': join(tmpdir(), 'no-such-template.txt') }) : task);
    for (const [tasks, badTask, problem] of [
      [noAddress, made[0].id, /toolbench knob 'judge': openai-compatible\/judge-model needs --set judge-base-url/],
      [laterMissingTemplate, made[2].id, /cannot read the evaluator template '.*no-such-template\.txt': no such file/],
    ] as const) {
      const store = openResultsStore(':memory:');
      try {
        await assert.rejects(runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/oracle', seed: 4, params: tasks[0].params, store }), (error: unknown) =>
          error instanceof ConfigError && error.message.startsWith(`task '${badTask}': `) && problem.test(error.message)
          && /Knobs are stored in each task: set it where the tasks are made \(toolforge generate toolbench --set \.\.\.\), or in each task's params in the tasks file/.test(error.fix ?? ''));
        assert.deepEqual(store.listRuns(), []);
      } finally {
        store.close();
      }
    }
  });

  test('the oracle finishes a sample of the real queries in both modes (every group)', { skip: noData }, async () => {
    const params = resolveKnobs('toolbench', toolbenchSuite.knobs, {});
    const all = await generateTasks(toolbenchSuite, { seed: 2, count: undefined, params, validate: false });
    assert.equal(all.length, 765);
    assert.deepEqual(queryGroups.map((group) => all.filter((task) => toolbenchExpected(task).group === group).length), [153, 163, 158, 124, 106, 61]);
    const sample = all.filter((_, index) => index % 25 === 0);
    for (const mode of ['calls', 'react'] as const) {
      const summary = await runEvaluation({ suite: toolbenchSuite, tasks: sample, modelRef: 'builtin/oracle', mode, seed: 2, params, store: openResultsStore(':memory:'), concurrency: 2 });
      assert.equal(summary.episodes, sample.length);
      assert.equal(summary.passRate, 1, JSON.stringify(summary.failures));
      assert.equal(summary.metrics.finishedWithAnswer, 1);
      assert.equal(summary.metrics.validCallRate, 1);
    }
  });
});

describe('toolbench scoring without a judge (structural, unjudged)', () => {
  test('oracle in calls and react: Finish with an answer after valid calls; random: no Finish', async () => {
    const tasks = await fixtureTasks();
    const params = tasks[0].params;
    for (const mode of ['calls', 'react'] as const) {
      const summary = await runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/oracle', mode, seed: 4, params, store: openResultsStore(':memory:'), concurrency: 1 });
      assert.equal(summary.passRate, 1);
      assert.equal(summary.metrics.judged, 0);
      assert.equal(summary.metrics.finishedWithAnswer, 1);
      assert.equal(summary.metrics.validCallRate, 1);
      assert.ok(Number.isNaN(summary.metrics.recoveredAfterSchemaError));
      assert.match(summary.tables[0].title, /unjudged/);
      assert.deepEqual(summary.tables[0].rows.at(-1), ['all', 4, '100.0 (unjudged)', '100.0', '0.0', '100.0', '-']);
    }
    const random = await runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/random', seed: 4, params, store: openResultsStore(':memory:'), concurrency: 1 });
    assert.equal(random.passRate, 0);
    assert.equal(random.metrics.noFinish, 1);
  });

  test('under rename-tools the oracle still passes, and its renamed Finish is not counted as an API call', async () => {
    const params = resolveKnobs('toolbench', toolbenchSuite.knobs, { data: fixtureQueries });
    const transform = getTransform('rename-tools');
    const tasks = await generateTasks(toolbenchSuite, { seed: 4, count: undefined, params, validate: false, transforms: [{ transform, knobs: resolveKnobs('rename-tools', transform.knobs, {}) }] });
    assert.ok(tasks.every((task) => !task.tools.some((tool) => tool.name === 'Finish')));
    for (const task of tasks) {
      const { score } = await runEpisode({ suite: toolbenchSuite, task, trial: 0, mode: 'calls', model: { ref: 'builtin/oracle', forEpisode: (episode) => transform.adaptModel!(toolbenchSuite.builtinModels.oracle.create(episode), task.origin!.transforms[0], task) } });
      assert.equal(score.passed, true, score.reason);
      assert.equal((score.details as ToolbenchDetails).apiCalls, toolbenchExpected(task).chain.length);
    }
  });

  test('schema errors, recovery, give-up and unknown names on hand-made episodes', async () => {
    const [task] = await fixtureTasks({}, 1);
    const run = async (steps: PolicyStep[]) => (await runEpisode({ suite: toolbenchSuite, task, trial: 0, mode: 'calls', model: scripted((state) => steps[state.history.length] ?? { type: 'answer', text: 'done' }) })).score;
    const wrongType: PolicyStep = { type: 'calls', calls: [{ name: 'museums_for_cityguide', arguments: { city: 7 } }] };
    const right: PolicyStep = { type: 'calls', calls: [{ name: 'museums_for_cityguide', arguments: { city: 'Porto' } }] };

    const recovered = await run([wrongType, right, finish('Three museums are open.')]);
    assert.equal(recovered.passed, true);
    assert.deepEqual({ ...(recovered.details as ToolbenchDetails) }, { group: 'G1_instruction', finish: 'answer', answered: true, apiCalls: 2, validCalls: 1, recovered: true, judged: false, verdicts: [] });

    const unrecovered = await run([right, wrongType, finish('Three museums are open.')]);
    assert.equal(unrecovered.passed, false);
    assert.equal(unrecovered.failure, 'arguments.invalid');
    assert.equal((unrecovered.details as ToolbenchDetails).recovered, false);

    const gaveUp = await run([right, { type: 'calls', calls: [{ name: 'Finish', arguments: { return_type: 'give_up_and_restart' } }] }]);
    assert.deepEqual([gaveUp.passed, gaveUp.failure, (gaveUp.details as ToolbenchDetails).finish], [false, 'result.wrong', 'give-up']);

    const empty = await run([right, finish('  ')]);
    assert.deepEqual([empty.passed, (empty.details as ToolbenchDetails).answered], [false, false]);

    const noCalls = await run([finish('I guess three.')]);
    assert.deepEqual([noCalls.passed, noCalls.failure], [false, 'result.wrong']);

    const unknown = await run([{ type: 'calls', calls: [{ name: 'no_such_api', arguments: {} }] }, right, finish('x')]);
    assert.deepEqual([unknown.passed, (unknown.details as ToolbenchDetails).recovered], [true, true]);
    const unknownOnly = await run([right, { type: 'calls', calls: [{ name: 'no_such_api', arguments: {} }] }, finish('x')]);
    assert.deepEqual([unknownOnly.passed, unknownOnly.failure], [false, 'tool.unknown']);
  });
});

function verdictReply(status: string): FakeReply {
  return { type: 'message', toolCalls: [{ id: 'call_1', name: 'check_answer_status', argumentsText: JSON.stringify({ answer_status: status }) }] };
}

describe('toolbench judge: StableToolBench evaluator over the OpenAI wire protocol (local fake server)', () => {
  test('Solved / Unsolved / Unsure (second prompt) per run; (Solved + 0.5 Unsure)/n as mean ± std; verdicts cached for rescore', async () => {
    const server = await startOpenAIFakeServer();
    const cache = mkdtempSync(join(tmpdir(), 'toolbench-judge-'));
    try {
      const tasks = await fixtureTasks({ judge: 'openai-compatible/judge-model', 'judge-base-url': server.baseUrl, 'judge-template': fixtureTemplate, cache });
      // Episode by episode, run by run; an Unsure first verdict asks parse_answer_status next.
      server.reply(
        verdictReply('Solved'), verdictReply('Solved'), verdictReply('Unsolved'), // 901: S S U
        verdictReply('Unsure'), verdictReply('Solved'), verdictReply('Unsure'), verdictReply('Unsure'), { type: 'message', text: 'My verdict: Unsolved' }, // 902: S, Unsure, U
        verdictReply('Unsolved'), verdictReply('Unsolved'), verdictReply('Unsolved'), // 903: U U U
        verdictReply('Solved'), verdictReply('Unsure'), verdictReply('Unsolved'), verdictReply('Solved'), // 904: S U S
      );
      const summary = await runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/oracle', seed: 4, params: tasks[0].params, store: openResultsStore(':memory:'), concurrency: 1 });
      assert.equal(summary.infrastructureErrors, 0);
      assert.equal(server.requests.length, 15);
      const first = server.requests[0].body as { tools: { function: { name: string } }[]; tool_choice: unknown; messages: { content: string }[] };
      assert.equal(first.tools[0].function.name, 'check_answer_status');
      assert.equal(first.tool_choice, 'required');
      assert.match(first.messages[0].content, /Query: I am in Lisbon tomorrow/);
      assert.match(first.messages[0].content, /Answer: For "I am in Lisbon/);
      const parse = server.requests[4].body as { tools: { function: { name: string } }[]; messages: { content: string }[] };
      assert.equal(parse.tools[0].function.name, 'parse_answer_status');
      assert.match(parse.messages[0].content, /Execution: \{"steps":\[\{"name":"price_for_coindesk_lite"/);
      // Runs: (3 Solved)/4 = 0.75; (1 Solved + 0.5)/4 = 0.375; (1 Solved)/4 = 0.25.
      assert.equal(summary.metrics.judged, 1);
      assert.equal(summary.metrics.judgeRuns, 3);
      assert.ok(Math.abs(summary.metrics.solvablePassRate - 1.375 / 3) < 1e-12);
      assert.ok(Math.abs(summary.metrics.solvablePassRateStd - Math.sqrt(((0.75 - 1.375 / 3) ** 2 + (0.375 - 1.375 / 3) ** 2 + (0.25 - 1.375 / 3) ** 2) / 2)) < 1e-12);
      assert.equal(summary.tables[0].rows.at(-1)?.[2], '45.8 ± 26.0');
      // Episodes: 2/3, 1/2, 0, 2/3 -> three pass at >= 0.5.
      assert.equal(summary.passed, 3);
      assert.equal(summary.failures['result.wrong'], 1);
      assert.ok(existsSync(join(cache, 'judge')) && readdirSync(join(cache, 'judge')).length === 1);

      // The same answers again (as rescore does): every verdict comes from the cache, no request.
      const again = await runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/oracle', seed: 4, params: tasks[0].params, store: openResultsStore(':memory:'), concurrency: 2 });
      assert.equal(server.requests.length, 15);
      assert.equal(again.metrics.solvablePassRate, summary.metrics.solvablePassRate);

      // No Finish: Unsolved without asking the judge.
      const random = await runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/random', seed: 4, params: tasks[0].params, store: openResultsStore(':memory:'), concurrency: 1 });
      assert.equal(server.requests.length, 15);
      assert.equal(random.metrics.solvablePassRate, 0);
    } finally {
      await server.close();
    }
  });

  test('a judge naming no status is an infrastructure fault, never a score', async () => {
    const server = await startOpenAIFakeServer();
    const cache = mkdtempSync(join(tmpdir(), 'toolbench-judge-'));
    try {
      const [task] = await fixtureTasks({ judge: 'openai-compatible/judge-model', 'judge-base-url': server.baseUrl, 'judge-template': fixtureTemplate, cache, 'judge-times': '1' }, 1);
      server.reply({ type: 'message', text: 'hmm' }, { type: 'message', text: 'no idea' }, { type: 'message', text: '?' });
      await assert.rejects(runEpisode({ suite: toolbenchSuite, task, trial: 0, mode: 'calls', model: scripted((state) => state.history.length === 0 ? finish('Open: all.') : { type: 'answer', text: 'done' }) }), /named no answer_status/);
    } finally {
      await server.close();
    }
  });

  test('summary on hand-made verdicts: per-run pass rates and the unjudged fallback', () => {
    const detail = (verdicts: ToolbenchDetails['verdicts'], group = 'G1_tool'): ToolbenchDetails => ({ group, finish: 'answer', answered: true, apiCalls: 1, validCalls: 1, recovered: null, judged: true, verdicts });
    const details = [detail(['Solved', 'Unsure']), detail(['Unsure', 'Unsure']), detail(['Unsolved', 'Solved'], 'G2_category')];
    assert.deepEqual(passRatesPerJudgeRun(details), [1.5 / 3, 2 / 3]);
    const episodes = details.map((details, index) => ({ task: { id: `t${index}` } as Task, trial: 0, score: { value: 0, passed: false, reason: '', details } }));
    const summary = summarizeToolbench(episodes);
    assert.equal(summary.metrics.solvablePassRate, (0.5 + 2 / 3) / 2);
    assert.deepEqual(summary.tables[0].rows.map((row) => row.slice(0, 3)), [['G1_tool', 2, '62.5 ± 17.7'], ['G2_category', 1, '50.0 ± 70.7'], ['all', 3, '58.3 ± 11.8']]);
    assert.deepEqual(passRatesPerJudgeRun(details.map((entry) => ({ ...entry, judged: false, verdicts: [] }))), []);
  });
});

describe('toolbench LLM simulator (reference 5.4) over the OpenAI wire protocol', () => {
  test('a cache miss asks the simulator model once; the answer persists in the response cache', async () => {
    const server = await startOpenAIFakeServer();
    const cache = mkdtempSync(join(tmpdir(), 'toolbench-simulator-'));
    try {
      const [task] = await fixtureTasks({ simulator: 'openai-compatible/simulator-model', 'simulator-base-url': server.baseUrl, cache }, 1);
      server.reply({ type: 'message', text: 'not json' }, { type: 'message', text: '```json\n{"error": "", "response": "MUDE and Gulbenkian are open."}\n```' });
      const call = async () => {
        const environment = await toolbenchSuite.createEnvironment(task, 'calls');
        const result = await environment.callTool({ id: '1', name: 'museums_for_cityguide', argumentsText: '{"city":"Lisbon"}', arguments: { city: 'Lisbon' } as JsonObject }, { signal: new AbortController().signal });
        await environment.dispose();
        return result;
      };
      assert.deepEqual(await call(), { ok: true, output: '{"error":"","response":"MUDE and Gulbenkian are open."}' });
      assert.equal(server.requests.length, 2);
      const body = server.requests[0].body as { messages: { role: string; content: string }[]; temperature: number };
      assert.equal(body.temperature, 0);
      assert.match(body.messages[1].content, /API Documentation: .*"api_info":\[\{"name":"museums"/);
      assert.match(body.messages[1].content, /API Input: \{"city":"Lisbon"\}/);
      assert.deepEqual(await call(), { ok: true, output: '{"error":"","response":"MUDE and Gulbenkian are open."}' });
      assert.equal(server.requests.length, 2);
      assert.ok(existsSync(join(cache, 'Travel', 'cityguide', 'museums.json')));
    } finally {
      await server.close();
    }
  });
});

/** A fake OpenAI server standing in for the helper models, and an empty cache folder; the server is closed after. */
async function withStandIn(use: (server: Awaited<ReturnType<typeof startOpenAIFakeServer>>, cache: string) => Promise<void>): Promise<void> {
  const server = await startOpenAIFakeServer();
  try {
    await use(server, mkdtempSync(join(tmpdir(), 'toolbench-helpers-')));
  } finally {
    await server.close();
  }
}

describe('toolbench helper models (simulator, judge) fail like any provider and are retried like one', () => {
  const rateLimited: FakeReply = { type: 'http-error', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '3' } };
  const unavailable: FakeReply = { type: 'http-error', status: 503, message: 'overloaded' };
  const simulated = (response: string): FakeReply => ({ type: 'message', text: JSON.stringify({ error: '', response }) });

  test('a 429 or 503 from the simulator or the judge is retried inside the episode, counted on it, and never ends it', async () => {
    await withStandIn(async (server, cache) => {
      const [task] = await fixtureTasks({
        simulator: 'openai-compatible/simulator-model', 'simulator-base-url': server.baseUrl,
        judge: 'openai-compatible/judge-model', 'judge-base-url': server.baseUrl, 'judge-template': fixtureTemplate, 'judge-times': '1', cache,
      }, 1);
      // The oracle calls museums, then weather, then Finish; then one judge verdict. Each helper request fails once first.
      server.reply(rateLimited, simulated('MUDE is open.'), unavailable, simulated('Dry, 21 C.'), rateLimited, verdictReply('Solved'));
      const waits: number[] = [];
      const summary = await runEvaluation({
        suite: toolbenchSuite, tasks: [task], modelRef: 'builtin/oracle', seed: 4, params: task.params, store: openResultsStore(':memory:'), concurrency: 1,
        retry: { sleep: async (delayMs) => { waits.push(delayMs); }, random: () => 0.5 },
      });
      assert.equal(summary.infrastructureErrors, 0);
      assert.equal(summary.episodes, 1);
      assert.equal(summary.passed, 1);
      assert.deepEqual(summary.retries, { 'provider.rate-limited': 2, 'provider.server-error': 1 });
      // Six requests: three answered, three retried; none repeated after it was answered (no replayed turn).
      assert.equal(server.requests.length, 6);
      assert.equal(waits.filter((delayMs) => delayMs === 3000).length, 2, 'the 429s were retried after their Retry-After');
    });
  });

  test('a simulator that keeps failing ends the episode as an infrastructure error after --max-retries, never as a score', async () => {
    await withStandIn(async (server, cache) => {
      const [task] = await fixtureTasks({ simulator: 'openai-compatible/simulator-model', 'simulator-base-url': server.baseUrl, cache }, 1);
      server.reply(unavailable, unavailable, unavailable);
      const summary = await runEvaluation({
        suite: toolbenchSuite, tasks: [task], modelRef: 'builtin/oracle', seed: 4, params: task.params, store: openResultsStore(':memory:'), concurrency: 1,
        retry: { maxRetries: 2, sleep: async () => {} },
      });
      assert.equal(summary.infrastructureErrors, 1);
      assert.equal(summary.episodes, 0);
      assert.equal(server.requests.length, 3);
      assert.deepEqual(summary.retries, { 'provider.server-error': 2 });
    });
  });

  test('the model under test and the helpers share the run\'s one retry wait budget (--max-retry-wait)', async () => {
    await withStandIn(async (server, cache) => {
      const [task] = await fixtureTasks({ simulator: 'openai-compatible/simulator-model', 'simulator-base-url': server.baseUrl, cache }, 1);
      // The tested model's 429 spends 3 s of the 4 s budget; the simulator's 429 then asks for 3 s more than is left.
      const museums = { id: 'call-1', name: 'museums_for_cityguide', argumentsText: '{"city":"Lisbon"}' };
      server.reply(rateLimited, { type: 'message', toolCalls: [museums] }, rateLimited);
      const waits: number[] = [];
      const store = openResultsStore(':memory:');
      const summary = await runEvaluation({
        suite: toolbenchSuite, tasks: [task], modelRef: 'openai-compatible/agent-model', baseUrl: server.baseUrl, env: { OPENAI_API_KEY: 'test' },
        seed: 4, params: task.params, store, concurrency: 1,
        retry: { maxTotalWaitMs: 4000, sleep: async (delayMs) => { waits.push(delayMs); } },
      });
      assert.deepEqual(waits, [3000], 'only the first 429 was waited out');
      assert.equal(server.requests.length, 3);
      assert.equal(summary.infrastructureErrors, 1);
      assert.equal(summary.episodes, 0);
      const [episode] = store.listEpisodes(summary.runId);
      assert.equal(episode.error?.code, 'provider.rate-limited');
      assert.match(episode.error?.message ?? '', /would exceed the run's retry wait budget of 4000 ms/);
    });
  });

  test('rescore asks the judge again when its verdict is not cached: retried like a run, and a judge that stays down says so', async () => {
    await withStandIn(async (server, cache) => {
      const store = openResultsStore(':memory:');
      const other = openResultsStore(':memory:');
      try {
        const [task] = await fixtureTasks({ judge: 'openai-compatible/judge-model', 'judge-base-url': server.baseUrl, 'judge-template': fixtureTemplate, 'judge-times': '1', cache }, 1);
        server.reply(verdictReply('Solved'));
        const run = await runEvaluation({ suite: toolbenchSuite, tasks: [task], modelRef: 'builtin/oracle', seed: 4, params: task.params, store, concurrency: 1 });
        assert.equal(run.passed, 1);
        // The run rescored where its verdicts were not kept: exported, and imported with a new, empty cache folder.
        const exported = store.exportRun(run.runId);
        const elsewhere = (): string => {
          const emptyCache = mkdtempSync(join(tmpdir(), 'toolbench-helpers-'));
          return other.importRun(exported.replaceAll(JSON.stringify(cache).slice(1, -1), JSON.stringify(emptyCache).slice(1, -1))).id;
        };

        server.reply(rateLimited, verdictReply('Solved'));
        const waits: number[] = [];
        const rescored = await rescoreRun({ runId: elsewhere(), store: other, retry: { sleep: async (delayMs) => { waits.push(delayMs); } } });
        assert.equal(rescored.passed, 1);
        assert.deepEqual(waits, [3000], "the judge's 429 was retried after its Retry-After");
        assert.equal(server.requests.length, 3);
        // The judge's retry is counted on the rescored episode and in the rescored run's summary.
        assert.deepEqual(rescored.retries, { 'provider.rate-limited': 1 });
        assert.deepEqual(other.listEpisodes(rescored.runId).map((episode) => episode.retries), [{ 'provider.rate-limited': 1 }]);

        server.reply(unavailable, unavailable);
        other.deleteRun(run.runId);
        const runId = elsewhere();
        await assert.rejects(rescoreRun({ runId, store: other, retry: { maxRetries: 1, sleep: async () => {} } }), (error: unknown) => {
          assert.ok(error instanceof ToolForgeError && !(error instanceof ConfigError));
          assert.equal(error.code, 'provider.server-error');
          assert.match(error.message, new RegExp(`run '${runId}': episode ${task.id} trial 0 cannot be re-scored: .*503`));
          assert.doesNotMatch(error.message, /store schema 1/);
          assert.match(error.fix ?? '', /rescore again when it answers/);
          // A failed rescore is not kept: nothing to delete.
          assert.doesNotMatch(error.fix ?? '', /toolforge delete/);
          assert.doesNotMatch(error.fix ?? '', /--resume/);
          return true;
        });
        assert.equal(server.requests.length, 5);

        // A judge that answers but names no status, three times: the judge's invalid response, not the store's fault.
        server.reply({ type: 'message', text: 'hmm' }, { type: 'message', text: 'no idea' }, { type: 'message', text: '?' });
        other.deleteRun(runId);
        const garbled = elsewhere();
        await assert.rejects(rescoreRun({ runId: garbled, store: other }), (error: unknown) => error instanceof ToolForgeError
          && error.code === 'provider.invalid-response' && /cannot be re-scored: judge openai-compatible\/judge-model named no answer_status/.test(error.message)
          && !/store schema 1/.test(error.message));
        assert.equal(server.requests.length, 8);
      } finally {
        store.close();
        other.close();
      }
    });
  });
});

