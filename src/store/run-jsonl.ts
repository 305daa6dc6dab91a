/**
 * A run as JSONL, for moving results between machines: the run header (with its provenance), then
 * one line per task in order, then one line per episode. Lines are canonical JSON so an export of
 * the same data is byte-identical.
 */
import type { z } from 'zod';
import type { EpisodeRecord } from '../core/episode.ts';
import { ConfigError } from '../core/errors.ts';
import { parseJsonLines } from '../core/json-lines.ts';
import { canonicalJson } from '../core/json.ts';
import type { Task } from '../core/task.ts';
import { exportLineSchema } from './record-schemas.ts';
import type { StoredRun } from './stored-run.ts';

export type RunExport = { run: StoredRun; tasks: Task[]; episodes: EpisodeRecord[] };

export function exportRunLines(run: StoredRun, tasks: readonly Task[], episodes: readonly EpisodeRecord[]): string[] {
  return [
    canonicalJson({ type: 'run', run }),
    ...tasks.map((task, ordinal) => canonicalJson({ type: 'task', ordinal, task })),
    ...episodes.map((episode) => canonicalJson({ type: 'episode', episode })),
  ];
}

/** Parses and cross-checks an export; every error names the source, the line and the field. */
export function parseRunExport(text: string, source: string): RunExport {
  const fail = (line: number, message: string, fix = 'pass a file written by `toolforge export`, unedited'): never => {
    throw new ConfigError('input.invalid', `${source}:${line}: ${message}`, { fix });
  };
  let run: StoredRun | undefined;
  const tasks: { line: number; ordinal: number; task: Task }[] = [];
  const episodes: EpisodeRecord[] = [];
  const episodeKeys = new Set<string>();
  const lines = parseJsonLines(text, (lineNumber, message) => fail(lineNumber, `not valid JSON (${message})`));
  for (const { lineNumber, value } of lines) {
    const parsed = exportLineSchema.safeParse(value);
    if (!parsed.success) fail(lineNumber, describeIssue(parsed.error));
    const entry = parsed.data!;
    if (entry.type === 'run') {
      if (run) fail(lineNumber, 'a second run header; an export holds exactly one run');
      run = entry.run as StoredRun;
      continue;
    }
    if (!run) return fail(lineNumber, `a ${entry.type} line before the run header (the first line must be {"type":"run",...})`);
    if (entry.type === 'task') {
      const task = entry.task as Task;
      if (task.suite.id !== run.suite.id) fail(lineNumber, `task '${task.id}' belongs to suite '${task.suite.id}', the run to '${run.suite.id}'`);
      if (tasks.some((other) => other.task.id === task.id)) fail(lineNumber, `task '${task.id}' appears twice`);
      if (tasks.some((other) => other.ordinal === entry.ordinal)) fail(lineNumber, `task ordinal ${entry.ordinal} appears twice`);
      tasks.push({ line: lineNumber, ordinal: entry.ordinal, task });
      continue;
    }
    const episode = entry.episode as EpisodeRecord;
    if (episode.runId !== run.id) fail(lineNumber, `field 'episode.runId' is '${episode.runId}', the run is '${run.id}'`);
    if (!tasks.some((other) => other.task.id === episode.taskId)) fail(lineNumber, `episode of unknown task '${episode.taskId}' (tasks come before episodes)`);
    if (episode.trial >= run.trials) fail(lineNumber, `field 'episode.trial' is ${episode.trial}, but the run has ${run.trials} trial(s) numbered from 0`);
    const key = `${episode.taskId}\u0000${episode.trial}`;
    if (episodeKeys.has(key)) fail(lineNumber, `episode (task '${episode.taskId}', trial ${episode.trial}) appears twice`);
    episodeKeys.add(key);
    episodes.push(episode);
  }
  if (!run) return fail(1, 'no run header: the file is empty or not a ToolForge export');
  if (tasks.length !== run.taskCount) {
    fail(text.split('\n').length, `the header says ${run.taskCount} task(s) but the file holds ${tasks.length}; it may be truncated`);
  }
  tasks.sort((left, right) => left.ordinal - right.ordinal);
  return { run, tasks: tasks.map((entry) => entry.task), episodes };
}

/** "field 'run.trials': Too small: expected number to be >0" — the first issue is enough to fix. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue.path.map(String).join('.');
  return field ? `field '${field}': ${issue.message}` : issue.message;
}
