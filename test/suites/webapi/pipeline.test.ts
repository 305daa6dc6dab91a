/**
 * The whole pipeline with the real sandbox: all 395 WAPIIBench gold configs rendered as axios code
 * score as correct implementations (both setups, chat and completions), adversarial programs end as
 * scored failures, replayed generations are scored, random scores near 0, generated tasks validate.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../../src/core/json.ts';
import { datasetPath } from '../../../src/core/data-location.ts';
import type { Task } from '../../../src/core/task.ts';
import { createModelSource } from '../../../src/models/registry.ts';
import type { ModelSource } from '../../../src/models/spec.ts';
import { generateTasks } from '../../../src/runner/generate-tasks.ts';
import { resolveModelSource } from '../../../src/runner/resolve-model-source.ts';
import { createLazySandbox } from '../../../src/runner/lazy-sandbox.ts';
import { runEpisode } from '../../../src/runner/run-episode.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import type { ScoredEpisode } from '../../../src/suites/spec.ts';
import { webapiSuite } from '../../../src/suites/webapi/index.ts';
import { extractWebapiProgram, programOutcomeOf } from '../../../src/suites/webapi/run-program.ts';
import type { ProgramRun } from '../../../src/core/program-host.ts';
import { fixturePath, requireData } from '../../require-data.ts';


/** One sandbox pool for every episode here, as a run has. */
const programs = createLazySandbox(2);
function knobs(raw: Record<string, string>) {
  return resolveKnobs(webapiSuite.id, webapiSuite.knobs, raw);
}

async function runAll(tasks: readonly Task[], model: ModelSource, lanes = 4): Promise<ScoredEpisode[]> {
  const episodes: ScoredEpisode[] = new Array(tasks.length);
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    for (let index = lane; index < tasks.length; index += lanes) {
      const result = await runEpisode({ suite: webapiSuite, task: tasks[index], trial: 0, mode: 'code', model, sandbox: () => programs.get() });
      episodes[index] = { task: tasks[index], trial: 0, score: result.score };
    }
  }));
  return episodes;
}

let gold: Task[];
const needsData = requireData('wapiibench');
/** The hand-written WAPIIBench-format task file (test/fixtures/data): its first task is GET /notes?limit=20&tag=groceries. */
const fixtureData = fixturePath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json');
let fixtureTasks: Task[];

before(async () => {
  if (!needsData) gold = await webapiSuite.generate({ seed: 0, count: undefined, params: knobs({}) });
  fixtureTasks = await webapiSuite.generate({ seed: 0, count: undefined, params: knobs({ data: fixtureData }) });
});

after(async () => {
  await programs.dispose();
});

describe('gold self-check', { skip: needsData }, () => {
  test('the 395 expected configs, rendered as axios code, are correct implementations (full completion, chat)', async () => {
    assert.equal(gold.length, 395);
    const episodes = await runAll(gold, resolveModelSource(webapiSuite, 'builtin/oracle'));
    const failed = episodes.filter((episode) => !episode.score.passed).map((episode) => `${episode.task.id}: ${episode.score.reason}`);
    assert.deepEqual(failed, []);
    const { metrics } = webapiSuite.summarize(episodes);
    for (const name of ['executable', 'correctImplementations', 'correctUrls', 'correctMethods', 'correctArgumentNames', 'correctArgumentValues', 'meanArgumentPrecision', 'meanArgumentRecall', 'meanArgumentJaccard', 'meanArgumentValueConditionalAccuracy']) {
      assert.equal(metrics[name], 1, name);
    }
    for (const name of ['illegalImplementations', 'illegalUrls', 'illegalMethods', 'missingArguments', 'unexpectedArguments', 'unnecessaryArguments', 'illegalArguments', 'totalErrors']) {
      assert.equal(metrics[name], 0, name);
    }
  });

  test('argument completion through a completions endpoint: the oracle continues the starter', async () => {
    const tasks = await webapiSuite.generate({ seed: 0, count: undefined, params: knobs({ setup: 'argument', endpoint: 'completions' }) });
    const episodes = await runAll(tasks, resolveModelSource(webapiSuite, 'builtin/oracle'));
    assert.deepEqual(episodes.filter((episode) => !episode.score.passed).map((episode) => episode.task.id), []);
  });

  test('tasks are deterministic and carry the WAPIIBench ids', async () => {
    const again = await webapiSuite.generate({ seed: 0, count: 3, params: knobs({}) });
    assert.equal(canonicalJson(again), canonicalJson(gold.slice(0, 3)));
    assert.deepEqual(gold.slice(0, 2).map((task) => task.id), ['webapi/asana/0', 'webapi/asana/1']);
    assert.ok(gold[0].prompt[0].content.endsWith("```javascript\n// Get the compact records for the first 50 attachments for the project with gid 159874.\nconst axios = require('axios');\n\naxios."));
  });
});

describe('scored failures', () => {
  const answers: [string, string, string][] = [
    ['endless loop', '```javascript\naxios.get(\'https://notes.example.test/v1/notes\', { params: (() => { while (true) {} })() });\n```', 'limit.exceeded'],
    ['memory bomb', '```javascript\naxios.get(\'https://notes.example.test/v1/notes\', { params: (() => { const a = []; for (;;) a.push(new Array(100000).fill(1)); })() });\n```', 'limit.exceeded'],
    ['throws', '```javascript\naxios.get(undefinedVariable);\n```', 'execution.error'],
    ['syntax error', '```javascript\naxios.get(\'https://notes.example.test/v1/notes\', {{);\n```', 'output.unparsable'],
    ['no axios call', 'I cannot help with that.', 'output.unparsable'],
    ['incomplete call', '```javascript\naxios.get(\'https://notes.example.test/v1/notes\'', 'output.unparsable'],
    ['stack overflow', '```javascript\naxios.get(\'https://notes.example.test/v1/notes\', { params: (function f() { return f(); })() });\n```', 'limit.exceeded'],
    ['awaits forever', '```javascript\naxios.get(await new Promise(() => {}));\n```', 'execution.error'],
    ['host access', '```javascript\naxios.get(require(\'fs\').readFileSync(\'/etc/passwd\', \'utf8\'));\n```', 'execution.error'],
    ['illegal endpoint', '```javascript\naxios.get(\'https://notes.example.test/v1/nothing/here\');\n```', 'tool.unknown'],
    ['illegal argument', '```javascript\naxios.get(\'https://notes.example.test/v1/notes\', { headers: { Authorization: \'Bearer <token>\' }, params: { tag: \'groceries\', limit: 20, colour: \'red\' } });\n```', 'arguments.invalid'],
    ['query string values are strings', '```javascript\naxios.get(\'https://notes.example.test/v1/notes?tag=groceries&limit=20\', { headers: { Authorization: \'Bearer <token>\' } });\n```', 'result.wrong'],
    ['wrong value', '```javascript\naxios.get(\'https://notes.example.test/v1/notes\', { headers: { Authorization: \'Bearer <token>\' }, params: { tag: \'groceries\', limit: \'20\' } });\n```', 'result.wrong'],
  ];

  test('each adversarial or wrong answer ends as a scored failure and the run goes on', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'webapi-replay-'));
    const file = join(directory, 'answers.jsonl');
    const task = fixtureTasks[0]!;
    writeFileSync(file, answers.map(([, output], index) => JSON.stringify({ taskId: task.id, trial: index, output })).join('\n'));
    const model = createModelSource(`replay/${file}`);
    for (const [index, [name, , failure]] of answers.entries()) {
      const result = await runEpisode({ suite: webapiSuite, task, trial: index, mode: 'code', model, sandbox: () => programs.get() });
      assert.equal(result.score.passed, false, name);
      assert.equal(result.score.failure, failure, `${name}: ${result.score.reason}`);
    }
    const correct = await runEpisode({ suite: webapiSuite, task, trial: 0, mode: 'code', model: resolveModelSource(webapiSuite, 'builtin/oracle'), sandbox: () => programs.get() });
    assert.equal(correct.score.passed, true, 'the sandbox still works after the failures');
  });

  test('an answer that writes no call is an incomplete request (as WAPIIBench counts it) whose reason says no call was written; a call cut short keeps its own reason', () => {
    const task = fixtureTasks[0]!;
    const starter = task.prompt.at(-1)!.content.slice(task.prompt.at(-1)!.content.lastIndexOf('```javascript\n') + '```javascript\n'.length);
    const outcome = (answer: string, endpoint: 'chat' | 'completions') => programOutcomeOf({ extraction: extractWebapiProgram(starter, answer, endpoint), result: null } as unknown as ProgramRun);
    for (const [answer, endpoint] of [['I cannot help with that.', 'chat'], ['```\nconsole.log(1)\n```', 'chat'], [' I would rather not.', 'completions'], [`${starter} sorry`, 'completions']] as const) {
      assert.deepEqual(outcome(answer, endpoint), { type: 'incomplete-request', noCallWritten: true }, answer);
    }
    for (const [answer, endpoint] of [["```javascript\naxios.get('https://notes.example.test/v1/notes'", 'chat'], ["get('https://notes.example.test/v1/notes', {", 'completions']] as const) {
      assert.deepEqual(outcome(answer, endpoint), { type: 'incomplete-request' }, answer);
    }
  });

  test('excess code after the call never runs (cut as the reference cuts it); URL query strings count as params', async () => {
    const task = fixtureTasks[0]!;
    const directory = mkdtempSync(join(tmpdir(), 'webapi-replay-'));
    const file = join(directory, 'excess.jsonl');
    const output = "```javascript\nwhile (true) {}\naxios.get('https://notes.example.test/v1/notes', { headers: { Authorization: 'Bearer <token>' }, params: { tag: 'groceries', limit: 20 } })\n  .then((response) => { while (true) {} });\nwhile (true) {}\n```";
    const queryOutput = "```javascript\naxios.get('https://notes.example.test/v1/notes?tag=groceries', { headers: { Authorization: 'Bearer <token>' }, params: { limit: 20 } });\n```";
    writeFileSync(file, [JSON.stringify({ taskId: task.id, trial: 0, output }), JSON.stringify({ taskId: task.id, trial: 1, output: queryOutput })].join('\n'));
    const model = createModelSource(`replay/${file}`);
    const result = await runEpisode({ suite: webapiSuite, task, trial: 0, mode: 'code', model, sandbox: () => programs.get() });
    assert.equal(result.score.passed, true, result.score.reason);
    const query = await runEpisode({ suite: webapiSuite, task, trial: 1, mode: 'code', model, sandbox: () => programs.get() });
    assert.equal(query.score.passed, true, `a query string in the URL counts as params: ${query.score.reason}`);
  });

  test('replayed raw completions are continued from the starter', async () => {
    const tasks = await webapiSuite.generate({ seed: 0, count: 2, params: knobs({ data: fixtureData, endpoint: 'completions' }) });
    const directory = mkdtempSync(join(tmpdir(), 'webapi-replay-'));
    const file = join(directory, 'completions.jsonl');
    writeFileSync(file, [
      JSON.stringify({ taskId: tasks[0].id, output: "get('https://notes.example.test/v1/notes', {\n  headers: { Authorization: 'Bearer <token>' },\n  params: { tag: 'groceries', limit: 20 }\n}).then(console.log);\n```\n" }),
      JSON.stringify({ taskId: tasks[1].id, output: "get('https://notes.example.test/v1/notes');" }),
    ].join('\n'));
    const episodes = await runAll(tasks, createModelSource(`replay/${file}`), 1);
    assert.equal(episodes[0].score.passed, true, episodes[0].score.reason);
    assert.equal(episodes[1].score.failure, 'result.wrong');
  });

  test('scoring is deterministic: the same answers give byte-identical scores', { skip: needsData }, async () => {
    const random = resolveModelSource(webapiSuite, 'builtin/random');
    const first = await runAll(gold.slice(100, 130), random);
    const second = await runAll(gold.slice(100, 130), random);
    assert.equal(canonicalJson(second.map((episode) => episode.score)), canonicalJson(first.map((episode) => episode.score)));
  });

  test('builtin/random scores near 0', { skip: needsData }, async () => {
    const episodes = await runAll(gold.slice(0, 60), resolveModelSource(webapiSuite, 'builtin/random'));
    const passed = episodes.filter((episode) => episode.score.passed).length;
    assert.ok(passed <= 1, `random solved ${passed} of 60`);
  });
});

describe('generated tasks', { skip: needsData }, () => {
  test('tasks from a spec validate with the oracle through the runner, and are deterministic', async () => {
    const params = knobs({ spec: datasetPath('wapiibench', 'openapi', 'real_world_specs', 'google_calendar_v3.yaml') });
    const tasks = await generateTasks(webapiSuite, { seed: 5, count: 20, params });
    assert.equal(tasks.length, 20);
    assert.equal(tasks[0].id, 'webapi/google_calendar_v3/5-0');
    const again = await webapiSuite.generate({ seed: 5, count: 20, params });
    assert.equal(canonicalJson(again), canonicalJson(tasks));
  });

  test('form-encoded bodies (Slack) and multipart bodies survive the round trip through the sandbox', async () => {
    const params = knobs({ spec: datasetPath('wapiibench', 'openapi', 'real_world_specs', 'slack.yaml'), optional: '0.6' });
    const tasks = await generateTasks(webapiSuite, { seed: 2, count: 40, params });
    const forms = tasks.filter((task) => JSON.stringify(task.expected).includes('application/x-www-form-urlencoded'));
    assert.ok(forms.length >= 10, `${forms.length} form-encoded tasks`);
    const multipart = gold.filter((task) => JSON.stringify(task.expected).includes('multipart/form-data'));
    assert.equal(multipart.length, 1);
  });
});
