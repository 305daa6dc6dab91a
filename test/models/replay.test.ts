import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { createModelSource } from '../../src/models/registry.ts';
import type { ModelSource } from '../../src/models/spec.ts';
import { episodeTask, generateRequest } from '../conformance/model-provider.cases.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolforge-replay-'));
let fileCounter = 0;

function replayFile(lines: unknown[]): string {
  const path = join(directory, `outputs-${(fileCounter += 1)}.jsonl`);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
  return path;
}

function modelFor(source: ModelSource, taskId: string, trial = 0) {
  return source.forEpisode({ task: episodeTask(taskId), trial, mode: 'calls' });
}

const request = generateRequest([{ role: 'user', content: 'go' }]);

function assertConfigError(action: () => unknown, code: string, pattern: RegExp): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('replay models', () => {
  test('replays a multi-turn script turn by turn, then answers empty', async () => {
    const path = replayFile([{
      taskId: 'suite-x/task-1',
      turns: [
        { content: 'Looking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_time', arguments: { city: 'Paris' } }] },
        { content: 'It is 18 C.' },
      ],
    }]);
    const model = modelFor(createModelSource(`replay/${path}`), 'suite-x/task-1');
    assert.equal(model.provider, 'replay');
    const first = await model.generate(request);
    assert.equal(first.message.content, 'Looking.');
    assert.deepEqual(first.message.toolCalls.map((call) => [call.id, call.name, call.argumentsText, call.arguments]), [
      ['replay_0_0', 'get_weather', '{"city":"Paris"}', { city: 'Paris' }],
      ['replay_0_1', 'get_time', '{"city":"Paris"}', { city: 'Paris' }],
    ]);
    assert.equal(first.finishReason, 'tool-calls');
    const second = await model.generate(request);
    assert.deepEqual(second.message, { role: 'assistant', content: 'It is 18 C.', toolCalls: [] });
    assert.equal(second.finishReason, 'stop');
    const exhausted = await model.generate(request);
    assert.deepEqual(exhausted.message, { role: 'assistant', content: '', toolCalls: [] });
    assert.deepEqual(exhausted.warnings, []);
  });

  test('replays recorded argumentsText byte for byte, malformed text as a parse error', async () => {
    const path = replayFile([{ taskId: 'task-1', turns: [{ toolCalls: [{ name: 'a', argumentsText: '{"x": 1 }' }, { name: 'b', argumentsText: '{"x": ' }] }] }]);
    const [good, bad] = (await modelFor(createModelSource(`replay/${path}`), 'suite-x/task-1').generate(request)).message.toolCalls;
    assert.equal(good.argumentsText, '{"x": 1 }');
    assert.deepEqual(good.arguments, { x: 1 });
    assert.equal(bad.argumentsText, '{"x": ');
    assert.equal(bad.arguments, undefined);
    assert.equal(typeof bad.parseError, 'string');
  });

  test('replays a one-shot output once, matching the task id without its suite prefix', async () => {
    const path = replayFile([{ taskId: 'abc', output: '[{"name": "f", "arguments": {}}]' }, { taskId: 'other', output: 'no' }]);
    const model = modelFor(createModelSource(`replay/${path}`), 'suite-x/abc');
    assert.equal((await model.generate(request)).message.content, '[{"name": "f", "arguments": {}}]');
    assert.equal((await model.generate(request)).message.content, '');
  });

  test('each episode starts the script again', async () => {
    const path = replayFile([{ taskId: 'suite-x/t', output: 'answer' }]);
    const source = createModelSource(`replay/${path}`);
    assert.equal((await modelFor(source, 'suite-x/t').generate(request)).message.content, 'answer');
    assert.equal((await modelFor(source, 'suite-x/t').generate(request)).message.content, 'answer');
  });

  test('a task with no line answers empty with a warning (scored as a failure)', async () => {
    const path = replayFile([{ taskId: 'known', output: 'x' }]);
    const result = await modelFor(createModelSource(`replay/${path}`), 'suite-x/unknown').generate(request);
    assert.deepEqual(result.message, { role: 'assistant', content: '', toolCalls: [] });
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0].message, /no line for task 'suite-x\/unknown'/);
  });

  test('a line pinned to a trial wins for that trial; other trials use the unpinned line', async () => {
    const path = replayFile([{ taskId: 't', output: 'any trial' }, { taskId: 't', trial: 1, output: 'trial one' }]);
    const source = createModelSource(`replay/${path}`);
    assert.equal((await modelFor(source, 'suite-x/t', 1).generate(request)).message.content, 'trial one');
    assert.equal((await modelFor(source, 'suite-x/t', 2).generate(request)).message.content, 'any trial');
  });

  test('a line with a wrong field is a ConfigError naming file, line and field', () => {
    const path = replayFile([{ taskId: 'a', output: 'x' }, { taskId: 'b', turns: [{ content: 'y', toolCalls: [{ name: 'f', arguments: 'not an object' }] }] }]);
    assertConfigError(() => createModelSource(`replay/${path}`), 'input.invalid', new RegExp(`${path.replace(/[.]/g, '\\.')} line 2 field "turns\\[0\\]\\.toolCalls\\[0\\]\\.arguments": expected an object; put argument text as the model wrote it \\(malformed or not an object\\) in "argumentsText", e\\.g\\. "argumentsText": "not an object"`));
    // An array (what a model may emit) is pointed the same way, as its text.
    const array = replayFile([{ taskId: 'a', turns: [{ toolCalls: [{ name: 'f', arguments: [1, 2] }] }] }]);
    assertConfigError(() => createModelSource(`replay/${array}`), 'input.invalid', /"argumentsText", e\.g\. "argumentsText": "\[1,2\]"/);
  });

  test('a tool call with neither arguments nor argumentsText says to give exactly one', () => {
    const path = replayFile([{ taskId: 'a', turns: [{ toolCalls: [{ name: 'f' }] }] }]);
    assertConfigError(() => createModelSource(`replay/${path}`), 'input.invalid', /line 1 field "turns\[0\]\.toolCalls\[0\]\.arguments": give exactly one/);
  });

  test('a line without turns or output names the missing field', () => {
    const path = replayFile([{ taskId: 'a' }]);
    assertConfigError(() => createModelSource(`replay/${path}`), 'input.invalid', /line 1 field "turns" or "output"/);
  });

  test('a line that is not JSON is a ConfigError with its line number', () => {
    const path = replayFile([{ taskId: 'a', output: 'x' }, '', '{"taskId": "b", "output": ']);
    assertConfigError(() => createModelSource(`replay/${path}`), 'input.invalid', /line 3 is not valid JSON/);
  });

  test('a repeated task id is a ConfigError naming both lines, whose fix says how to give each trial its own line', () => {
    const path = replayFile([{ taskId: 'a', output: 'x' }, { taskId: 'a', output: 'y' }]);
    assertConfigError(() => createModelSource(`replay/${path}`), 'input.invalid', /line 2 repeats taskId 'a' already on line 1\n {2}fix: keep one line per task, or, for --trials n .* "trial": 0/);
    const sameTrial = replayFile([{ taskId: 'a', trial: 1, output: 'x' }, { taskId: 'a', trial: 0, output: 'y' }, { taskId: 'a', trial: 1, output: 'z' }]);
    assertConfigError(() => createModelSource(`replay/${sameTrial}`), 'input.invalid', /line 3 repeats taskId 'a' trial 1 already on line 1/);
  });

  test('coverage names missing tasks, missing trials as id#trial, and file ids no planned task matches, in file order', () => {
    const path = replayFile([
      { taskId: 'stray-2', output: 'x' },
      { taskId: 'suite-x/a', output: 'every trial' },
      { taskId: 'b', trial: 1, output: 'trial one only' },
      { taskId: 'stray-1', output: 'x' },
      { taskId: 'stray-2', trial: 0, output: 'x' },
    ]);
    const source = createModelSource(`replay/${path}`);
    const coverage = source.coverage?.(['suite-x/a', 'suite-x/b', 'suite-x/c'].map((id) => ({ task: episodeTask(id), trials: 2 })));
    assert.deepEqual(coverage, { missing: ['suite-x/b#0', 'suite-x/c'], unknownTaskIds: ['stray-2', 'stray-1'] });
  });

  test('a file larger than one read chunk: multi-byte text split across chunks, CRLF endings and blank lines replay exactly', async () => {
    // Each line ~70 KB of 3-byte characters: reads of 1 MiB split lines, and characters, at arbitrary bytes.
    const outputs = Array.from({ length: 40 }, (_, index) => `${index}:${'€文'.repeat(12_000 + index)}`);
    const path = join(directory, `outputs-${(fileCounter += 1)}.jsonl`);
    writeFileSync(path, outputs.map((output, index) => `${JSON.stringify({ taskId: `t${index}`, output })}\r\n${index % 7 === 0 ? '\n' : ''}`).join(''));
    const source = createModelSource(`replay/${path}`);
    for (const index of [0, 13, 14, 39]) {
      assert.equal((await modelFor(source, `suite-x/t${index}`).generate(request)).message.content, outputs[index]);
    }
    // Line numbers count the blank lines (after t0 and t7), as an editor shows them: t8 is on line 11.
    assert.deepEqual((await modelFor(source, 'suite-x/t8').generate(request)).raw.response, { lineNumber: 11, turn: 0 });
  });

  test('a replay file rewritten after it was checked is a ConfigError when its line is read back', () => {
    const path = replayFile([{ taskId: 'a', output: 'x' }, { taskId: 'b', output: 'y' }]);
    const source = createModelSource(`replay/${path}`);
    writeFileSync(path, `${JSON.stringify({ taskId: 'c', output: 'x' })}\n${JSON.stringify({ taskId: 'd', output: 'y' })}\n`);
    assertConfigError(() => modelFor(source, 'suite-x/b'), 'input.invalid', /changed while the run was reading it: line 2/);
  });

  test('a missing file is a ConfigError before anything runs', () => {
    assertConfigError(() => createModelSource(`replay/${join(directory, 'absent.jsonl')}`), 'input.unreadable', /absent\.jsonl/);
  });
});
