/**
 * A run as JSONL, for moving results between machines: the run header (with its provenance), then
 * one line per task in order, then one line per episode. Lines are canonical JSON so an export of
 * the same data is byte-identical. Both directions work a line at a time (runExportLines, readRunExport), so a
 * run of any size is exported and imported without holding it.
 */
import type { z } from 'zod';
import type { EpisodeRecord } from '../core/episode.ts';
import { jsonDocumentInsteadOfLines, otherFileKind } from '../core/file-kind.ts';
import { ConfigError } from '../core/errors.ts';
import { parseJsonLines } from '../core/json-lines.ts';
import { canonicalJson } from '../core/json.ts';
import type { Task } from '../core/task.ts';
import { exportLineSchema } from './record-schemas.ts';
import type { StoredRun } from './stored-run.ts';
import { describeIssue } from '../core/describe-issue.ts';

// Where it was first written: its callers import it from here too.
export { describeIssue };

export type RunExport = { run: StoredRun; tasks: Task[]; episodes: EpisodeRecord[] };

/** One checked line of an export. A task's ordinal is its position: the ordinals of a valid file are 0 .. taskCount - 1. */
export type RunExportEntry =
  /** `tasksComplete` false: the run was stopped (or still running) before all its tasks were stored; resume stores the rest. */
  | { type: 'run'; run: StoredRun; tasksComplete: boolean }
  | { type: 'task'; ordinal: number; task: Task }
  | { type: 'episode'; episode: EpisodeRecord };

/** The export's lines (without newlines), made one at a time as the tasks and episodes are read. */
export function* runExportLines(run: StoredRun, tasks: Iterable<Task>, episodes: Iterable<EpisodeRecord>, tasksComplete = true): Generator<string> {
  // The header announces the end line, and the end line counts what came before it: a file cut short anywhere, even
  // between two episodes, is refused on import instead of becoming a run with episodes quietly missing.
  yield canonicalJson({ type: 'run', run, trailer: true, ...(tasksComplete ? {} : { tasksComplete: false }) });
  // The run as the header has it: tasks stored (and episodes of them ended) while the export reads, by a run still
  // running, are left to a later export, so the file agrees with itself.
  const exported = new Set<string>();
  for (const task of tasks) {
    if (exported.size === run.taskCount) break;
    yield canonicalJson({ type: 'task', ordinal: exported.size, task });
    exported.add(task.id);
  }
  let episodeCount = 0;
  for (const episode of episodes) {
    if (!exported.has(episode.taskId)) continue;
    yield canonicalJson({ type: 'episode', episode });
    episodeCount += 1;
  }
  yield canonicalJson({ type: 'end', tasks: exported.size, episodes: episodeCount });
}

export function exportRunLines(run: StoredRun, tasks: readonly Task[], episodes: readonly EpisodeRecord[]): string[] {
  return [...runExportLines(run, tasks, episodes)];
}

/**
 * Checks an export's lines as they are read and yields each line's record: the run header first, then tasks and
 * episodes, every error naming the source, the line and the field. It keeps only the ids it has seen (to refuse
 * duplicates and episodes of unknown tasks), never the records, so a file of any size is checked in one pass.
 */
export function* readRunExport(lines: Iterable<string>, source: string, options: { checkTask?: (task: Task) => string | undefined } = {}): Generator<RunExportEntry> {
  const fail = (line: number, message: string, fix = 'pass a file written by `toolforge export`, unedited'): never => {
    throw new ConfigError('input.invalid', `${source}:${line}: ${message}`, { fix });
  };
  let run: StoredRun | undefined;
  let trailer = false;
  let ended = false;
  const taskIds = new Set<string>();
  const ordinals = new Set<number>();
  const episodeKeys = new Set<string>();
  // Every line, blank ones too: the truncation error names the line after the last, as the file's text split would.
  let lineCount = 0;
  const counted = (function* count(): Generator<string> {
    for (const line of lines) {
      lineCount += 1;
      yield line;
    }
  })();
  for (const { lineNumber, value } of parseJsonLines(counted, (lineNumber, message, line) => {
    const document = run === undefined ? jsonDocumentInsteadOfLines(source, { text: line }, 'export', 'a run export') : undefined;
    return document ? fail(lineNumber, document.problem, document.fix) : fail(lineNumber, `not valid JSON (${message})`);
  })) {
    const parsed = exportLineSchema.safeParse(value);
    if (!parsed.success) {
      const other = run === undefined ? otherFileKind(source, value, 'export', 'a run export') ?? jsonDocumentInsteadOfLines(source, { value }, 'export', 'a run export') : undefined;
      if (other) fail(lineNumber, other.problem, other.fix);
      fail(lineNumber, describeIssue(parsed.error));
    }
    const entry = parsed.data!;
    if (ended) fail(lineNumber, 'a line after the end line ({"type":"end",...} is the last line of an export)');
    if (entry.type === 'run') {
      if (run) fail(lineNumber, 'a second run header; an export holds exactly one run');
      run = entry.run as StoredRun;
      trailer = entry.trailer === true;
      const headerProblem = runHeaderProblem(run);
      if (headerProblem) fail(lineNumber, headerProblem);
      yield { type: 'run', run, tasksComplete: entry.tasksComplete !== false };
      continue;
    }
    if (!run) return fail(lineNumber, `a ${entry.type} line before the run header (the first line must be {"type":"run",...})`);
    if (entry.type === 'end') {
      if (entry.tasks !== taskIds.size || entry.episodes !== episodeKeys.size) {
        fail(lineNumber, `the end line counts ${entry.tasks} task(s) and ${entry.episodes} episode(s), but the file holds ${taskIds.size} and ${episodeKeys.size}; lines are missing`);
      }
      ended = true;
      continue;
    }
    if (entry.type === 'task') {
      const task = entry.task as Task;
      if (task.suite.id !== run.suite.id) fail(lineNumber, `task '${task.id}' belongs to suite '${task.suite.id}', the run to '${run.suite.id}'`);
      if (task.suite.version !== run.suite.version) fail(lineNumber, `task '${task.id}' is of ${task.suite.id} version ${task.suite.version}, the run of version ${run.suite.version}`);
      const taskProblem = options.checkTask?.(task);
      if (taskProblem) fail(lineNumber, taskProblem);
      if (taskIds.has(task.id)) fail(lineNumber, `task '${task.id}' appears twice`);
      if (ordinals.has(entry.ordinal)) fail(lineNumber, `task ordinal ${entry.ordinal} appears twice`);
      // Tasks are stored at their ordinals as they are read: with no ordinal past the header's count, no duplicate and
      // the right count, the ordinals are exactly 0 .. taskCount - 1.
      if (entry.ordinal >= run.taskCount) fail(lineNumber, `task ordinal ${entry.ordinal} is past the header's ${run.taskCount} task(s) (numbered from 0)`);
      taskIds.add(task.id);
      ordinals.add(entry.ordinal);
      yield { type: 'task', ordinal: entry.ordinal, task };
      continue;
    }
    const episode = entry.episode as EpisodeRecord;
    if (episode.runId !== run.id) fail(lineNumber, `field 'episode.runId' is '${episode.runId}', the run is '${run.id}'`);
    if (!taskIds.has(episode.taskId)) fail(lineNumber, `episode of unknown task '${episode.taskId}' (tasks come before episodes)`);
    if (episode.trial >= run.trials) fail(lineNumber, `field 'episode.trial' is ${episode.trial}, but the run has ${run.trials} trial(s) numbered from 0`);
    if (episode.model !== run.model) fail(lineNumber, `field 'episode.model' is '${episode.model}', but the run's model is '${run.model}'`);
    if (run.mode !== null && episode.mode !== run.mode) fail(lineNumber, `field 'episode.mode' is '${episode.mode}', but the run's mode is '${run.mode}'`);
    const inconsistent = inconsistentEpisode(episode);
    if (inconsistent) fail(lineNumber, inconsistent);
    const key = `${episode.taskId}\u0000${episode.trial}`;
    if (episodeKeys.has(key)) fail(lineNumber, `episode (task '${episode.taskId}', trial ${episode.trial}) appears twice`);
    episodeKeys.add(key);
    yield { type: 'episode', episode };
  }
  if (!run) return fail(1, 'no run header: the file is empty or not a ToolForge export');
  if (taskIds.size !== run.taskCount) {
    fail(lineCount, `the header says ${run.taskCount} task(s) but the file holds ${taskIds.size}; it may be truncated`);
  }
  if (trailer && !ended) {
    fail(lineCount, `the file ends without its end line ({"type":"end",...}) after ${episodeKeys.size} episode(s): it is truncated`, 'export the run again (or copy the whole file); a cut-off export imports nothing');
  }
  // An export from before the end line: a finished run has every episode, so one short of them was cut.
  const planned = run.taskCount * run.trials;
  if (!trailer && run.status === 'finished' && episodeKeys.size < planned) {
    fail(lineCount, `the header says the run finished its ${planned} episode(s), but the file holds ${episodeKeys.size}; it is truncated`, 'export the run again (or copy the whole file); a cut-off export imports nothing');
  }
}

/**
 * What no episode ToolForge stores can be: a scored episode without a score or ending, an infrastructure error with a
 * score, a pass with a failure code. Reports count these fields separately (pass rates from `passed`, failure tables
 * from `failure`, exclusions from `status`), so an edited line would make them disagree with each other.
 */
function inconsistentEpisode(episode: EpisodeRecord): string | undefined {
  const where = `episode (task '${episode.taskId}', trial ${episode.trial})`;
  if (episode.status === 'scored') {
    if (episode.score === null) return `${where} has status 'scored' but field 'episode.score' is null`;
    if (episode.termination === null) return `${where} has status 'scored' but field 'episode.termination' is null`;
    if (episode.error !== null) return `${where} has status 'scored' but also field 'episode.error' (${episode.error.code})`;
  } else {
    if (episode.score !== null) return `${where} has status '${episode.status}' but a score; only scored episodes have one`;
    if (episode.status === 'infrastructure-error' && episode.error === null) return `${where} has status 'infrastructure-error' but field 'episode.error' is null`;
  }
  const score = episode.score;
  if (score?.passed && score.failure !== undefined) return `${where} passed but has field 'episode.score.failure' ('${score.failure}'); a failure code marks a failed episode`;
  // Pass rates read `passed`, mean scores read `value`: a full score is a pass, and a pass scores above nothing (a suite
  // may pass at less than 1, as a judged toolbench answer does at 0.5).
  if (score && score.passed ? score.value === 0 : score?.value === 1) {
    return `${where} has field 'episode.score.passed' ${score?.passed} with 'episode.score.value' ${score?.value}; a full score is a pass, and a pass scores more than 0`;
  }
  return undefined;
}

/** What no run ToolForge records has: a run id a command reads as a word (latest), a creation time that is no time. */
function runHeaderProblem(run: StoredRun): string | undefined {
  if (reservedRunIds.has(run.id)) return `field 'run.id' is '${run.id}', which commands read as a word, not a run id`;
  if (!isoTimestamp.test(run.createdAt) || Number.isNaN(Date.parse(run.createdAt))) return `field 'run.createdAt' is '${run.createdAt}', not an ISO 8601 time (e.g. 2026-01-31T12:00:00.000Z)`;
  return undefined;
}

const reservedRunIds = new Set(['latest']);
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Parses and cross-checks a whole export held as text (small inputs; readRunExport reads any size a line at a time). */
export function parseRunExport(text: string, source: string): RunExport {
  let run: StoredRun | undefined;
  const tasks: { ordinal: number; task: Task }[] = [];
  const episodes: EpisodeRecord[] = [];
  for (const entry of readRunExport(text.split('\n'), source)) {
    if (entry.type === 'run') run = entry.run;
    else if (entry.type === 'task') tasks.push(entry);
    else episodes.push(entry.episode);
  }
  tasks.sort((left, right) => left.ordinal - right.ordinal);
  return { run: run!, tasks: tasks.map((entry) => entry.task), episodes };
}

