import { readLinesSync, withLinesRead } from '../core/read-lines.ts';
import { parseJsonLines } from '../core/json-lines.ts';
import { jsonDocumentInsteadOfLines, otherFileKind } from '../core/file-kind.ts';
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import { taskSchema } from '../core/task.ts';
import { toolSchemaProblem } from './tool-schema-check.ts';
import { rememberPassed } from '../core/checked-once.ts';
import { describeIssue } from '../store/run-jsonl.ts';
import { fileProblem } from '../core/file-problem.ts';
import { shellArgument } from '../core/shell-argument.ts';

/**
 * Reads a tasks JSONL file (one task per line, as `toolforge generate` writes them). Every error
 * names the file, the line and the field. With `suiteId`, tasks of another suite are refused.
 */
export async function readTasksFile(path: string, options: { suiteId?: string } = {}): Promise<Task[]> {
  const tasks = [...streamTasksFile(path, options)];
  if (tasks.length === 0) throw emptyTasksFile(path);
  return tasks;
}

export function emptyTasksFile(path: string): ConfigError {
  return new ConfigError('input.invalid', `${path} holds no tasks`, { fix: 'write tasks with `toolforge generate <suite> --out <file>`' });
}

/** The suite a tasks file's first task belongs to (every later task is checked against it as it is read). */
export function tasksFileSuite(path: string): string {
  const tasks = streamTasksFile(path);
  try {
    const first = tasks.next();
    if (first.done) throw emptyTasksFile(path);
    return first.value.suite.id;
  } finally {
    // Closes the file now, not when the reader is collected.
    tasks.return(undefined);
  }
}

/**
 * readTasksFile one task at a time, the file read a chunk at a time: a run of a 100,000-task file never holds
 * its text or its tasks. The same checks and messages (an empty file is the caller's to refuse).
 */
export type TasksFileOptions = {
  /** The suite every task must belong to. */
  suiteId?: string;
  /** Filled with each task id's line as it is read, so a check made later names the line. */
  lines?: Map<string, number>;
  /** A check of each task (the suite's own of its ground truth): a ConfigError it throws is named by the file and line. */
  check?: (task: Task) => void;
};

export function* streamTasksFile(path: string, options: TasksFileOptions = {}): Generator<Task> {
  const fix = 'each line must be one task object as written by `toolforge generate`';
  let firstSuite: string | undefined;
  let lineOfFirstTask = 0;
  const lineOfId = options.lines ?? new Map<string, number>();
  let lines: Iterable<string>;
  try {
    const reader = readLinesSync(path);
    // Open the file now, so an unreadable path fails here with its own message.
    const first = reader.next();
    lines = first.done ? [] : withLinesRead([first.value], reader);
  } catch (error) {
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('input.unreadable', `cannot read tasks file ${path}: ${fileProblem(path, error)}`, {
      fix: 'check the --tasks path (write one with `toolforge generate <suite> --out tasks.jsonl`)',
      cause: error,
    });
  }
  const parsedLines = parseJsonLines(lines, (lineNumber, message, line) => {
    const document = lineOfId.size === 0 ? jsonDocumentInsteadOfLines(path, { text: line }, 'tasks', 'a tasks file') : undefined;
    if (document) throw new ConfigError('input.invalid', `${path}:${lineNumber}: ${document.problem}`, { fix: document.fix });
    throw new ConfigError('input.invalid', `${path}:${lineNumber}: not valid JSON (${message})`, { fix });
  });
  for (const { lineNumber, value } of parsedLines) {
    const parsed = taskSchema.safeParse(value);
    if (!parsed.success) {
      const other = lineOfId.size === 0 ? otherFileKind(path, value, 'tasks', 'a tasks file') ?? jsonDocumentInsteadOfLines(path, { value }, 'tasks', 'a tasks file') : undefined;
      if (other) throw new ConfigError('input.invalid', `${path}:${lineNumber}: ${other.problem}`, { fix: other.fix });
      throw new ConfigError('input.invalid', `${path}:${lineNumber}: ${describeIssue(parsed.error)}`, { fix });
    }
    const task = parsed.data as Task;
    const toolProblem = toolSchemaProblem(task.tools);
    if (toolProblem !== undefined) throw new ConfigError('input.invalid', `${path}:${lineNumber}: ${toolProblem}`, { fix: 'give each tool a JSON Schema of its arguments: {"type": "object", "properties": {...}, "required": [...]}' });
    rememberPassed(taskSchema, task);
    const expectedSuite = options.suiteId ?? firstSuite;
    if (expectedSuite !== undefined && task.suite.id !== expectedSuite) {
      // Once a line has matched, the file mixes suites, and naming another suite would fail on its first line.
      const mixed = firstSuite !== undefined;
      throw new ConfigError('input.invalid', `${path}:${lineNumber}: field 'suite.id' is '${task.suite.id}', but ${mixed ? 'earlier tasks belong to' : 'the run is for'} suite '${expectedSuite}'`, {
        fix: mixed
          ? `a tasks file holds the tasks of one suite: split it by suite.id (line ${lineOfFirstTask} is ${firstSuite}, line ${lineNumber} is ${task.suite.id}) and run each part`
          : `run this file with: toolforge run ${task.suite.id} --tasks ${shellArgument(path)}`,
      });
    }
    if (firstSuite === undefined) {
      firstSuite = task.suite.id;
      lineOfFirstTask = lineNumber;
    }
    const previous = lineOfId.get(task.id);
    if (previous !== undefined) {
      throw new ConfigError('input.invalid', `${path}:${lineNumber}: task id '${task.id}' already appears on line ${previous}`, { fix: 'remove the duplicate line' });
    }
    lineOfId.set(task.id, lineNumber);
    try {
      options.check?.(task);
    } catch (error) {
      if (error instanceof ConfigError) throw new ConfigError(error.code, `${path}:${lineNumber}: ${error.problem}`, { fix: error.fix, cause: error });
      throw error;
    }
    yield task;
  }
}

/** Tasks as JSONL, one per line with a trailing newline: the format readTasksFile reads. */
export function formatTasksJsonl(tasks: readonly Task[]): string {
  return tasks.map((task) => JSON.stringify(task)).join('\n') + (tasks.length > 0 ? '\n' : '');
}
