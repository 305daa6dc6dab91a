/**
 * Choosing which tasks of a generated or stored set to run: by id pattern, by count, or the ones a stored run
 * failed. Selection never changes a task, so a selected task scores exactly as it would in the full set.
 */
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { ResultsStore } from '../store/results-store.ts';

export type TaskSelection = {
  /** Id patterns (`*` any run of characters, `?` one); a task is kept when any pattern matches its whole id. */
  taskIds?: readonly string[];
  /** Keep at most this many (after the id patterns), in order. */
  limit?: number;
};

export function selectTasks(tasks: readonly Task[], selection: TaskSelection): Task[] {
  let selected = [...tasks];
  if (selection.taskIds && selection.taskIds.length > 0) {
    const patterns = selection.taskIds.map((pattern) => ({ pattern, expression: globExpression(pattern) }));
    const unmatched = patterns.filter(({ expression }) => !tasks.some((task) => expression.test(task.id)));
    if (unmatched.length > 0) {
      const examples = tasks.slice(0, 3).map((task) => task.id).join(', ');
      throw new ConfigError('config.invalid', `--task-id ${unmatched.map(({ pattern }) => `'${pattern}'`).join(', ')} matches no task`, {
        fix: `use ids as stored (e.g. ${examples}); '*' matches any run of characters, e.g. --task-id '${tasks[0]?.suite.id ?? 'suite'}/*'`,
      });
    }
    selected = selected.filter((task) => patterns.some(({ expression }) => expression.test(task.id)));
  }
  if (selection.limit !== undefined) selected = selected.slice(0, selection.limit);
  return selected;
}

/** A whole-id glob: `*` any run of characters (slashes included), `?` exactly one. */
export function globExpression(pattern: string): RegExp {
  const body = [...pattern].map((character) => {
    if (character === '*') return '.*';
    if (character === '?') return '.';
    return character.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }).join('');
  return new RegExp(`^${body}$`);
}

/**
 * The tasks of a stored run that did not pass every scored trial, or that have a trial without a score
 * (infrastructure error, never run), in the run's order: what `--rerun-failed` runs again.
 */
export function failedTasksOf(store: ResultsStore, runId: string): Task[] {
  const run = store.getRun(runId);
  const passedTrials = new Map<string, number>();
  for (const key of store.listEpisodeKeys(runId)) passedTrials.set(key.taskId, passedTrials.get(key.taskId) ?? 0);
  for (const taskId of store.listPassedTaskTrials(runId)) passedTrials.set(taskId, (passedTrials.get(taskId) ?? 0) + 1);
  return store.listTasks(runId).filter((task) => (passedTrials.get(task.id) ?? 0) < run.trials);
}

/**
 * selectTasks over a stream, in order, holding nothing but the patterns' hits: tasks pass through as they are read.
 * Past `limit` the stream is read on only while a pattern has not matched yet (its error needs the whole set).
 */
export async function* selectTaskStream(source: Iterable<Task> | AsyncIterable<Task>, selection: TaskSelection): AsyncGenerator<Task> {
  const patterns = (selection.taskIds ?? []).map((pattern) => ({ pattern, expression: globExpression(pattern), matched: false }));
  const examples: string[] = [];
  let suiteId: string | undefined;
  let kept = 0;
  for await (const task of source) {
    if (examples.length < 3) examples.push(task.id);
    suiteId ??= task.suite.id;
    let selected = patterns.length === 0;
    for (const pattern of patterns) {
      if (!pattern.expression.test(task.id)) continue;
      pattern.matched = true;
      selected = true;
    }
    const full = selection.limit !== undefined && kept >= selection.limit;
    if (selected && !full) {
      kept += 1;
      yield task;
    }
    if (selection.limit !== undefined && kept >= selection.limit && patterns.every((pattern) => pattern.matched)) return;
  }
  const unmatched = patterns.filter((pattern) => !pattern.matched);
  if (unmatched.length > 0) {
    throw new ConfigError('config.invalid', `--task-id ${unmatched.map(({ pattern }) => `'${pattern}'`).join(', ')} matches no task`, {
      fix: `use ids as stored (e.g. ${examples.join(', ')}); '*' matches any run of characters, e.g. --task-id '${suiteId ?? 'suite'}/*'`,
    });
  }
}
