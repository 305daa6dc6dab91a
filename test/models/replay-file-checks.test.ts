/**
 * What a replay file can hold that would otherwise be dropped or changed without a word: a misspelt field, bytes
 * that are not UTF-8, trials past the run's --trials; and the missing-output count, which must count what it says.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { createModelSource } from '../../src/models/registry.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { episodeTask } from '../conformance/model-provider.cases.ts';
import { createFakeSuite } from '../fixtures/fake-sum-suite.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolforge-replay-checks-'));
let fileCounter = 0;

function replayFile(lines: unknown[]): string {
  return replayBytes(Buffer.from(lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n'));
}

function replayBytes(bytes: Buffer): string {
  const path = join(directory, `outputs-${(fileCounter += 1)}.jsonl`);
  writeFileSync(path, bytes);
  return path;
}

function configError(action: () => unknown, code: string, ...patterns: RegExp[]): ConfigError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ConfigError, `expected a ConfigError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  for (const pattern of patterns) assert.match(caught.message, pattern);
  return caught;
}

const escaped = (path: string): string => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('replay file fields', () => {
  test('a misspelt top-level field is refused with file, line, the field and the nearest valid one', () => {
    const ouptut = replayFile([{ taskId: 'a', output: 'x' }, { taskId: 'b', ouptut: 'y' }]);
    const error = configError(() => createModelSource(`replay/${ouptut}`), 'input.invalid', new RegExp(`${escaped(ouptut)} line 2 field "ouptut": unknown field \\(did you mean "output"\\?\\)`));
    assert.equal(error.fix, 'rename "ouptut" to "output"');
    // The line is otherwise whole: without the check its trial would be dropped and it would answer every trial.
    const trail = replayFile([{ taskId: 'a', trail: 1, output: 'x' }]);
    configError(() => createModelSource(`replay/${trail}`), 'input.invalid', /line 1 field "trail": unknown field \(did you mean "trial"\?\)/);
    const camel = replayFile([{ task_id: 'a', output: 'x' }]);
    configError(() => createModelSource(`replay/${camel}`), 'input.invalid', /line 1 field "task_id": unknown field \(did you mean "taskId"\?\)/);
  });

  test('a field like no valid one lists the valid fields; a misspelt field inside a turn or tool call is named there', () => {
    const score = replayFile([{ taskId: 'a', output: 'x', score: 1 }]);
    const error = configError(() => createModelSource(`replay/${score}`), 'input.invalid', /line 1 field "score": unknown field \(a line's fields are taskId, trial, turns, output\)/);
    assert.match(error.fix ?? '', /^remove "score" from the line/);
    const content = replayFile([{ taskId: 'a', turns: [{ contnet: 'x' }] }]);
    configError(() => createModelSource(`replay/${content}`), 'input.invalid', /line 1 field "turns\[0\]\.contnet": unknown field \(did you mean "content"\?\)/);
    const argumentsText = replayFile([{ taskId: 'a', turns: [{ toolCalls: [{ name: 'f', argumentText: '{}' }] }] }]);
    configError(() => createModelSource(`replay/${argumentsText}`), 'input.invalid', /line 1 field "turns\[0\]\.toolCalls\[0\]\.argumentText": unknown field \(did you mean "argumentsText"\?\)/);
  });

  test('a line with both "turns" and "output" is refused: one of them would be dropped', () => {
    const path = replayFile([{ taskId: 'a', output: 'x', turns: [{ content: 'y' }] }]);
    const error = configError(() => createModelSource(`replay/${path}`), 'input.invalid', /line 1 gives both "turns" and "output", and only one of them would be replayed/);
    assert.match(error.fix ?? '', /keep one/);
  });
});

describe('replay file encoding', () => {
  test('bytes that are not UTF-8 are refused with the line and the byte offset, not replaced with U+FFFD', () => {
    const first = `${JSON.stringify({ taskId: 'a', output: 'café' })}\n`;
    const prefix = '{"taskId": "b", "output": "caf';
    const bytes = Buffer.concat([Buffer.from(first), Buffer.from(prefix), Buffer.from([0xe9]), Buffer.from('"}\n')]);
    const path = replayBytes(bytes);
    const offset = Buffer.byteLength(first) + Buffer.byteLength(prefix);
    const error = configError(() => createModelSource(`replay/${path}`), 'input.invalid',
      new RegExp(`${escaped(path)} line 2 is not UTF-8: byte 0xe9 at byte offset ${offset} of the file \\(byte ${prefix.length + 1} of the line\\)`));
    assert.match(error.fix ?? '', new RegExp(`save the file as UTF-8.*xxd -s ${offset}`));
  });

  test('a multi-byte character cut short, an overlong form and a surrogate are each refused; a stored U+FFFD is text', () => {
    // Each named by its first byte: a character cut short (by the quote), an overlong "/", a UTF-16 surrogate.
    for (const invalid of [[0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const path = replayBytes(Buffer.concat([Buffer.from('{"taskId": "a", "output": "'), Buffer.from(invalid), Buffer.from('"}\n')]));
      configError(() => createModelSource(`replay/${path}`), 'input.invalid', new RegExp(`line 1 is not UTF-8: byte 0x${invalid[0].toString(16)} at byte offset 27 of the file \\(byte 28 of the line\\)`));
    }
    const replacement = replayFile([{ taskId: 'a', output: 'kept \uFFFD as written, 4-byte 😀 too' }]);
    assert.doesNotThrow(() => createModelSource(`replay/${replacement}`));
  });
});

describe('replay trials', () => {
  test('lines for trials past the run\'s --trials are refused, naming the line and the --trials that keeps them', () => {
    const path = replayFile([
      { taskId: 'a', trial: 0, output: 'x' },
      { taskId: 'a', trial: 1, output: 'y' },
      { taskId: 'b', output: 'every trial' },
      { taskId: 'a', trial: 3, output: 'z' },
      { taskId: 'a', trial: 2, output: 'w' },
      // Not a planned task: it is reported as unknown and ignored, whatever its trial.
      { taskId: 'elsewhere', trial: 9, output: 'v' },
    ]);
    const source = createModelSource(`replay/${path}`);
    const plan = (trials: number) => ['suite-x/a', 'suite-x/b'].map((id) => ({ task: episodeTask(id), trials }));
    const error = configError(() => source.coverage?.(plan(2)), 'config.invalid',
      new RegExp(`${escaped(path)} line 4 holds trial 3 of task 'a', but the run has 2 trials \\(0 and 1\\): the outputs for trials 2 and 3 \\(2 lines\\) would never be scored`));
    assert.match(error.fix ?? '', /pass --trials 4 \(trials: 4 in an eval set\) to score every trial the file holds for these tasks, or remove its lines for trials 2 and up/);
    configError(() => source.coverage?.(plan(1)), 'config.invalid', /line 2 holds trial 1 of task 'a', but the run has 1 trial \(0\): the outputs for trials 1 to 3 \(3 lines\)/);
    assert.deepEqual(source.coverage?.(plan(4)), { missing: [], unknownTaskIds: ['elsewhere'] });
  });

  test('a run with fewer trials than the file holds is refused before it is recorded', async () => {
    const suite = createFakeSuite();
    const tasks = await suite.generate({ seed: 1, count: 2, params: {} });
    const path = replayFile(tasks.flatMap((task) => [0, 1].map((trial) => ({ taskId: task.id, trial, output: 'x' }))));
    const store = openResultsStore(':memory:');
    try {
      await assert.rejects(runEvaluation({ suite, tasks, modelRef: `replay/${path}`, trials: 1, seed: 1, params: {}, store }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /holds trial 1 of task '[^']+', but the run has 1 trial/);
        assert.match(error.fix ?? '', /pass --trials 2/);
        return true;
      });
      assert.deepEqual(store.listRuns(), []);
    } finally {
      store.close();
    }
  });

  test('missing outputs are counted per task, as the message words them: a task missing several trials is one entry', async () => {
    const path = replayFile([
      { taskId: 'a', output: 'every trial' },
      { taskId: 'b', trial: 1, output: 'trial one only' },
      { taskId: 'd', trial: 0, output: 'x' },
      { taskId: 'd', trial: 2, output: 'x' },
    ]);
    const source = createModelSource(`replay/${path}`);
    const coverage = source.coverage?.(['suite-x/a', 'suite-x/b', 'suite-x/c', 'suite-x/d'].map((id) => ({ task: episodeTask(id), trials: 3 })));
    assert.deepEqual(coverage, { missing: ['suite-x/b#{0,2}', 'suite-x/c', 'suite-x/d#1'], unknownTaskIds: [] });

    // Through a run: "no output for N of M tasks" counts tasks (before, 2 missing trials of one task read as "2 of 2 tasks").
    const suite = createFakeSuite();
    const tasks = await suite.generate({ seed: 1, count: 2, params: {} });
    const partial = replayFile([{ taskId: tasks[0].id, output: 'x' }, { taskId: tasks[1].id, trial: 1, output: 'x' }]);
    const store = openResultsStore(':memory:');
    try {
      await assert.rejects(runEvaluation({ suite, tasks, modelRef: `replay/${partial}`, trials: 3, seed: 1, params: {}, store }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, new RegExp(`has no output for 1 of 2 tasks \\(${escaped(tasks[1].id)}#\\{0,2\\}\\)`));
        return true;
      });
    } finally {
      store.close();
    }
  });
});
