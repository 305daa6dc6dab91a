import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ToolForgeError } from '../../src/core/errors.ts';
import { distinctToolsByName } from '../../src/core/tool.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { getTransform } from '../../src/transforms/registry.ts';
import { formatTasksJsonl, readTasksFile } from '../../src/runner/read-tasks-file.ts';
import { runEpisode } from '../../src/runner/run-episode.ts';
import { resolveModelSource } from '../../src/runner/resolve-model-source.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';
import { temporaryDirectory } from './test-helpers.ts';

describe('generateTasks', () => {
  test('same seed gives byte-identical tasks, validated by the oracle', async () => {
    const suite = createFakeSuite();
    const first = await generateTasks(suite, { seed: 42, count: 4, params: {} });
    const second = await generateTasks(createFakeSuite(), { seed: 42, count: 4, params: {} });
    assert.equal(first.length, 4);
    assert.equal(formatTasksJsonl(first), formatTasksJsonl(second));
    assert.notEqual(formatTasksJsonl(first), formatTasksJsonl(await generateTasks(suite, { seed: 43, count: 4, params: {} })));
    // The oracle ran once per task, each in a fresh, disposed environment.
    assert.equal(suite.counters.environmentsCreated, 8);
    assert.equal(suite.counters.environmentsDisposed, 8);
  });

  test('a seed, count or start a generator cannot use is config.invalid naming the field, before any task is made', async () => {
    const cases: [Partial<{ seed: number; count: number; from: number }>, RegExp][] = [
      [{ seed: 1e20 }, /seed must be a whole number within/],
      [{ seed: 1.5 }, /seed must be a whole number/],
      [{ seed: Number.NaN }, /seed must be a whole number/],
      [{ count: 0 }, /count must be a whole number from 1/],
      [{ count: 2.5 }, /count must be a whole number from 1/],
      [{ from: -1 }, /from must be a whole number from 0/],
    ];
    for (const [numbers, pattern] of cases) {
      await assert.rejects(generateTasks(createFakeSuite(), { seed: 1, count: 2, params: {}, ...numbers }), (error: unknown) =>
        error instanceof ConfigError && error.code === 'config.invalid' && pattern.test(error.message), JSON.stringify(numbers));
    }
    // The largest seeds still work: Rng takes any safe integer.
    assert.equal((await generateTasks(createFakeSuite(), { seed: Number.MAX_SAFE_INTEGER, count: 1, params: {} })).length, 1);
    assert.equal((await generateTasks(createFakeSuite(), { seed: -5, count: 1, params: {} })).length, 1);
  });

  test('a task the oracle cannot solve is refused with suite.unsolvable-task naming it', async () => {
    const suite = createFakeSuite({ brokenTask: 2 });
    await assert.rejects(generateTasks(suite, { seed: 1, count: 4, params: {} }), (error: unknown) =>
      error instanceof ToolForgeError && error.code === 'suite.unsolvable-task' && /task 'fake-sum-1-2' is not solvable/.test(error.message));
    assert.equal((await generateTasks(suite, { seed: 1, count: 4, params: {}, validate: false })).length, 4);
  });

  test('tasks a suite imports from a data set are checked for shape, not solved again, unless a transform changed them', async () => {
    const suite = createFakeSuite({ brokenTask: 2 });
    const importing = { ...suite, importsTasks: (params: Record<string, unknown>) => params.data === 'file.jsonl' };
    const imported = await generateTasks(importing, { seed: 1, count: 4, params: { data: 'file.jsonl' } });
    assert.equal(imported.length, 4);
    assert.equal(suite.counters.environmentsCreated, 0);
    // The same suite generating (no data) solves every task, and a transform is our code: both refuse the broken one.
    await assert.rejects(generateTasks(importing, { seed: 1, count: 4, params: {} }), { code: 'suite.unsolvable-task' });
    await assert.rejects(generateTasks(importing, { seed: 1, count: 4, params: { data: 'file.jsonl' }, transforms: [{ transform: getTransform('identity'), knobs: {} }] }), { code: 'suite.unsolvable-task' });
    // A malformed imported task is still refused.
    const malformed = { ...importing, generate: async () => [{ ...imported[0], modes: [] }] };
    await assert.rejects(generateTasks(malformed, { seed: 1, count: 1, params: { data: 'file.jsonl' } }), { code: 'suite.invalid-task' });
  });

  test('a malformed generated task is refused with suite.invalid-task', async () => {
    const suite = createFakeSuite();
    const broken = { ...suite, generate: async () => [{ ...(await suite.generate({ seed: 1, count: 1, params: {} }))[0], modes: [] }] };
    await assert.rejects(generateTasks(broken, { seed: 1, count: 1, params: {} }), (error: unknown) =>
      error instanceof ToolForgeError && error.code === 'suite.invalid-task' && /field 'modes'/.test(error.message));
  });

  test('without the oracle check, tasks are still checked one by one for shape and duplicate ids', async () => {
    const suite = createFakeSuite();
    const tasks = await suite.generate({ seed: 1, count: 3, params: {} });
    const malformed = { ...suite, generate: async () => [tasks[0], { ...tasks[1], modes: [] }, tasks[2]] };
    await assert.rejects(generateTasks(malformed, { seed: 1, count: 3, params: {}, validate: false }), (error: unknown) =>
      error instanceof ToolForgeError && error.code === 'suite.invalid-task' && /field 'modes'/.test(error.message));
    const duplicated = { ...suite, generate: async () => [tasks[0], tasks[1], tasks[0]] };
    await assert.rejects(generateTasks(duplicated, { seed: 1, count: 3, params: {}, validate: false }), (error: unknown) =>
      error instanceof ToolForgeError && error.code === 'suite.invalid-task' && /duplicate id/.test(error.message));
    const stamped = { ...suite, generate: async () => [{ ...tasks[0], suite: { ...tasks[0].suite, version: '0.0.0' } }] };
    await assert.rejects(generateTasks(stamped, { seed: 1, count: 1, params: {}, validate: false }), { code: 'suite.invalid-task' });
    assert.deepEqual(await generateTasks(suite, { seed: 1, count: 3, params: {}, validate: false }), tasks);
  });
});

describe('runEpisode', () => {
  test('one oracle episode: final answer, scored as passing, environment disposed', async () => {
    const suite = createFakeSuite();
    const [task] = await suite.generate({ seed: 2, count: 1, params: {} });
    const result = await runEpisode({ suite, task, trial: 0, mode: 'calls', model: resolveModelSource(suite, 'builtin/oracle') });
    assert.equal(result.termination, 'final-answer');
    assert.equal(result.score.passed, true);
    assert.deepEqual(result.messages.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.equal(suite.counters.environmentsDisposed, 1);
  });

  test('the task time limit ends a stuck model with a time-limit termination, scored', async () => {
    const suite = createFakeSuite({ slowDelayMs: 60_000 });
    const [task] = await suite.generate({ seed: 2, count: 1, params: {} });
    const result = await runEpisode({ suite, task: { ...task, limits: { ...task.limits, timeLimitMs: 50 } }, trial: 0, mode: 'calls', model: resolveModelSource(suite, 'builtin/slow') });
    assert.equal(result.termination, 'time-limit');
    assert.equal(result.score.passed, false);
    assert.equal(suite.counters.environmentsDisposed, 1);
  });
});

describe('readTasksFile', () => {
  const directory = temporaryDirectory();

  test('reads back what formatTasksJsonl wrote, skipping blank lines', async () => {
    const tasks = await createFakeSuite().generate({ seed: 3, count: 3, params: {} });
    const path = join(directory, 'tasks.jsonl');
    writeFileSync(path, formatTasksJsonl(tasks) + '\n\n');
    assert.deepEqual(await readTasksFile(path), tasks);
    assert.deepEqual(await readTasksFile(path, { suiteId: 'fake-sum' }), tasks);
  });

  test('every bad input names the file, line and field', async () => {
    const [task, other] = await createFakeSuite().generate({ seed: 3, count: 2, params: {} });
    const line = JSON.stringify(task);
    const cases: [string, string, RegExp, { suiteId?: string }?][] = [
      ['json.jsonl', `${line}\n{"id": `, /json\.jsonl:2: not valid JSON/],
      ['field.jsonl', JSON.stringify({ ...task, limits: { ...task.limits, maxTurns: 'ten' } }), /field\.jsonl:1: field 'limits\.maxTurns'/],
      ['missing.jsonl', JSON.stringify({ ...task, prompt: undefined }), /missing\.jsonl:1: field 'prompt'/],
      ['mode.jsonl', JSON.stringify({ ...task, modes: ['telepathy'] }), /mode\.jsonl:1: field 'modes\[0\]'/],
      ['other-suite.jsonl', line, /other-suite\.jsonl:1: field 'suite\.id' is 'fake-sum', but the run is for suite 'nestful'/, { suiteId: 'nestful' }],
      ['mixed.jsonl', `${line}\n${JSON.stringify({ ...other, suite: { id: 'webapi', version: '1' } })}`, /mixed\.jsonl:2: .*earlier tasks belong to suite 'fake-sum'/],
      // Named for the run, a file whose later lines change suite is mixed: the fix says to split it, not to run it as the other suite.
      ['mixed-for-run.jsonl', `${line}\n\n${JSON.stringify({ ...other, suite: { id: 'webapi', version: '1' } })}`,
        /mixed-for-run\.jsonl:3: .*earlier tasks belong to suite 'fake-sum'\n {2}fix: .*split it by suite\.id \(line 1 is fake-sum, line 3 is webapi\)/, { suiteId: 'fake-sum' }],
      ['duplicate.jsonl', `${line}\n${line}`, /duplicate\.jsonl:2: task id 'fake-sum-3-0' already appears on line 1/],
      ['empty.jsonl', '\n', /holds no tasks/],
      ['modes-twice.jsonl', JSON.stringify({ ...task, modes: [...task.modes, task.modes[0]] }), /modes-twice\.jsonl:1: field 'modes\[2\]': 'calls' is listed twice/],
      ['no-prompt.jsonl', JSON.stringify({ ...task, prompt: [] }), /no-prompt\.jsonl:1: field 'prompt': Too small/],
      // A tool whose parameters are not a JSON Schema would be refused by the provider on every request.
      ['schema-type.jsonl', JSON.stringify({ ...task, tools: [{ ...task.tools[0], inputSchema: { ...task.tools[0].inputSchema, type: 'objectt' } }] }),
        /schema-type\.jsonl:1: field 'tools\[0\]\.inputSchema\.type' \(tool 'add'\): is "objectt", but a tool's parameters are an object/],
      ['schema-keyword.jsonl', JSON.stringify({ ...task, tools: [{ ...task.tools[0], inputSchema: { type: 'object', properties: { a: { type: 'integer', minimum: 'x' } } } }] }),
        /schema-keyword\.jsonl:1: field 'tools\[0\]\.inputSchema\.properties\.a\.minimum' \(tool 'add'\): not a JSON Schema: must be number/],
    ];
    for (const [name, text, pattern, options] of cases) {
      const path = join(directory, name);
      writeFileSync(path, text);
      await assert.rejects(readTasksFile(path, options), (error: unknown) =>
        error instanceof ConfigError && error.code === 'input.invalid' && pattern.test(error.message) && error.fix !== undefined, name);
    }
  });

  test('tools may share a name (published data repeats identical specs); calls mode offers each name once', async () => {
    const [task] = await createFakeSuite().generate({ seed: 3, count: 1, params: {} });
    const path = join(directory, 'repeated-tool.jsonl');
    writeFileSync(path, `${JSON.stringify({ ...task, tools: [task.tools[0], task.tools[0]] })}\n`);
    const [read] = await readTasksFile(path);
    assert.equal(read.tools.length, 2);
    assert.deepEqual(distinctToolsByName(read.tools), [task.tools[0]]);
    assert.equal(distinctToolsByName(task.tools), task.tools, 'a list without repeats is returned as it is');
  });

  test('an unreadable file is input.unreadable', async () => {
    await assert.rejects(readTasksFile(join(directory, 'absent.jsonl')), (error: unknown) =>
      error instanceof ConfigError && error.code === 'input.unreadable' && /absent\.jsonl/.test(error.message));
  });
});
