import { readFile } from 'node:fs/promises';
import { parseJsonLines } from '../core/json-lines.ts';
import { ConfigError, errorMessage } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { taskSchema } from '../core/task.ts';
import { describeIssue } from '../store/run-jsonl.ts';

/**
 * Reads a tasks JSONL file (one task per line, as `toolforge generate` writes them). Every error
 * names the file, the line and the field. With `suiteId`, tasks of another suite are refused.
 */
export async function readTasksFile(path: string, options: { suiteId?: string } = {}): Promise<Task[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('input.unreadable', `cannot read tasks file ${path}: ${errorMessage(error)}`, {
      fix: 'check the --tasks path (write one with `toolforge generate <suite> --out tasks.jsonl`)',
      cause: error,
    });
  }
  const fix = 'each line must be one task object as written by `toolforge generate`';
  const tasks: Task[] = [];
  const lineOfId = new Map<string, number>();
  const lines = parseJsonLines(text, (lineNumber, message) => {
    throw new ConfigError('input.invalid', `${path}:${lineNumber}: not valid JSON (${message})`, { fix });
  });
  for (const { lineNumber, value } of lines) {
    const parsed = taskSchema.safeParse(value);
    if (!parsed.success) throw new ConfigError('input.invalid', `${path}:${lineNumber}: ${describeIssue(parsed.error)}`, { fix });
    const task = parsed.data as Task;
    const expectedSuite = options.suiteId ?? tasks[0]?.suite.id;
    if (expectedSuite !== undefined && task.suite.id !== expectedSuite) {
      throw new ConfigError('input.invalid', `${path}:${lineNumber}: field 'suite.id' is '${task.suite.id}', but ${options.suiteId ? 'the run is for' : 'earlier tasks belong to'} suite '${expectedSuite}'`, {
        fix: options.suiteId ? `run this file with 'toolforge run ${task.suite.id} --tasks ${path}'` : 'a tasks file holds the tasks of one suite: split it',
      });
    }
    const previous = lineOfId.get(task.id);
    if (previous !== undefined) {
      throw new ConfigError('input.invalid', `${path}:${lineNumber}: task id '${task.id}' already appears on line ${previous}`, { fix: 'remove the duplicate line' });
    }
    lineOfId.set(task.id, lineNumber);
    tasks.push(task);
  }
  if (tasks.length === 0) {
    throw new ConfigError('input.invalid', `${path} holds no tasks`, { fix: 'write tasks with `toolforge generate <suite> --out <file>`' });
  }
  return tasks;
}

/** Tasks as JSONL, one per line with a trailing newline: the format readTasksFile reads. */
export function formatTasksJsonl(tasks: readonly Task[]): string {
  return tasks.map((task) => JSON.stringify(task)).join('\n') + (tasks.length > 0 ? '\n' : '');
}
