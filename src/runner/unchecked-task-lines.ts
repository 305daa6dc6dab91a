/**
 * A range of a suite's unchecked tasks (`toolforge generate --no-validate`) as JSON lines. A suite that writes its
 * lines itself (`Suite.streamTaskLines`: funcgen, where making and serialising the objects was most of the cost) has
 * them taken as written, the range's first line held to its task made the usual way: checked for shape and stamp by
 * the same check as every unchecked task, and the same bytes. A line writer that drifts from its task then fails the
 * first range it writes, at the cost of one task in a range. Any other suite's tasks are made, checked and serialised.
 */
import { ToolForgeError } from '../core/errors.ts';
import type { GenerateTasksRequest, Suite, TaskLine } from '../suites/spec.ts';
import { fewerTasksThanCount, streamUncheckedTasks } from './stream-unchecked-tasks.ts';

export async function* uncheckedTaskLines(suite: Suite, request: GenerateTasksRequest, from: number): AsyncGenerator<TaskLine> {
  const { streamTaskLines } = suite;
  if (streamTaskLines === undefined) {
    for await (const task of streamUncheckedTasks(suite, request, from)) yield { id: task.id, line: JSON.stringify(task) };
    return;
  }
  let made = from;
  for (const taskLine of streamTaskLines.call(suite, request, { from })) {
    if (made === from) await checkLine(suite, request, from, taskLine);
    made += 1;
    yield taskLine;
    if (request.signal?.aborted) return;
  }
  if (request.count !== undefined && made < request.count && !request.signal?.aborted) throw fewerTasksThanCount(suite, request, made);
}

async function checkLine(suite: Suite, request: GenerateTasksRequest, index: number, taskLine: TaskLine): Promise<void> {
  for await (const task of streamUncheckedTasks(suite, { ...request, count: index + 1 }, index)) {
    const line = JSON.stringify(task);
    if (task.id === taskLine.id && line === taskLine.line) return;
    let at = 0;
    while (at < line.length && line[at] === taskLine.line[at]) at += 1;
    throw new ToolForgeError('suite.invalid-task', `suite '${suite.id}' wrote task '${task.id}' as a JSON line that is not the task's own JSON (they part at character ${at}: ${JSON.stringify(taskLine.line.slice(at, at + 40))} against ${JSON.stringify(line.slice(at, at + 40))})`, {
      fix: `this is a bug in suite ${suite.id}'s streamTaskLines; please report it with the seed and --set values (generating without --no-validate does not use it)`,
    });
  }
}
