import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, ToolForgeError } from '../../src/core/errors.ts';
import { uncheckedTaskLines } from '../../src/runner/unchecked-task-lines.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import type { GenerateTasksRequest, StreamPosition, Suite, TaskLine } from '../../src/suites/spec.ts';
import { counterSuite } from '../fixtures/counter-suite.ts';

const params = resolveKnobs(funcgenSuite.id, funcgenSuite.knobs, { core: '4', connected: '1', disconnected: '1' });
const request = { seed: 8, count: 12, params };

async function collect(suite: Suite, from: number, options: Partial<GenerateTasksRequest> = {}): Promise<TaskLine[]> {
  const lines: TaskLine[] = [];
  for await (const taskLine of uncheckedTaskLines(suite, { ...request, ...options }, from)) lines.push(taskLine);
  return lines;
}

async function taskLines(suite: Suite, from: number, options: Partial<GenerateTasksRequest> = {}): Promise<TaskLine[]> {
  const tasks = await suite.generate({ ...request, ...options });
  return tasks.slice(from).map((task) => ({ id: task.id, line: JSON.stringify(task) }));
}

/** funcgen with its line writer changed by `edit`. */
function withLines(edit: (lines: TaskLine[]) => TaskLine[]): Suite {
  return {
    ...(funcgenSuite as unknown as Suite),
    streamTaskLines(taskRequest: GenerateTasksRequest, position?: StreamPosition) {
      return edit([...(funcgenSuite.streamTaskLines?.(taskRequest, position) ?? [])]);
    },
  };
}

test('a suite\'s own task lines are handed on as written, the same as its tasks serialised, from any start', async () => {
  for (const from of [0, 5]) assert.deepEqual(await collect(funcgenSuite as unknown as Suite, from), await taskLines(funcgenSuite as unknown as Suite, from));
});

test('a suite without a line writer has its tasks made, checked and serialised', async () => {
  const counter = counterSuite as unknown as Suite;
  assert.equal(counter.streamTaskLines, undefined);
  const options = { params: resolveKnobs(counter.id, counter.knobs, {}), count: 6 };
  assert.deepEqual(await collect(counter, 2, options), await taskLines(counter, 2, options));
});

test('a range whose first line is not its task\'s JSON is refused, naming the task and where they part', async () => {
  const drifted = withLines((lines) => lines.map((taskLine, index) => (index === 0 ? { ...taskLine, line: taskLine.line.replace('"modes":["calls","react"]', '"modes":["react","calls"]') } : taskLine)));
  await assert.rejects(collect(drifted, 3), (error: unknown) => {
    assert.ok(error instanceof ToolForgeError);
    assert.equal(error.code, 'suite.invalid-task');
    assert.match(error.message, /wrote task 'funcgen\/8\/3' as a JSON line that is not the task's own JSON \(they part at character \d+: "react/);
    assert.match(error.fix ?? '', /streamTaskLines/);
    return true;
  });
  const renamed = withLines((lines) => lines.map((taskLine) => ({ ...taskLine, id: `${taskLine.id}x` })));
  await assert.rejects(collect(renamed, 0), /wrote task 'funcgen\/8\/0' as a JSON line/);
});

test('a line writer that gives fewer tasks than --count is the suite\'s count error', async () => {
  const short = withLines((lines) => lines.slice(0, 4));
  await assert.rejects(collect(short, 0), (error: unknown) => error instanceof ConfigError && /has only 4 tasks for these settings, fewer than --count 12/.test(error.message));
});
