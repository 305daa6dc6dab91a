/**
 * `replay/<file.jsonl>`: scores stored outputs without calling a model. Each episode gets a fresh
 * LanguageModel that answers each generate with the next recorded turn; a task the file does not
 * cover gets an empty answer and a warning, so it is scored as a failure (as official scorers do). The file is
 * indexed, not held: each episode reads its own line back from it.
 */
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { AssistantMessage } from '../../core/message.ts';
import type { Task } from '../../core/task.ts';
import { createToolCall } from '../../core/tool.ts';
import type { EpisodeContext, GenerateResult, LanguageModel, ModelSource, OutputCoverage, PlannedTask, ProviderWarning } from '../spec.ts';
import type { ReplayEntry, ReplayFileIndex, ReplayTurn } from './replay-file.ts';
import { indexReplayFile } from './replay-file.ts';

export function createReplayModelSource(path: string, ref = `replay/${path}`): ModelSource {
  const index = indexReplayFile(path);
  return {
    ref,
    forEpisode(episode: EpisodeContext): LanguageModel {
      const entry = findReplayEntry(index, episode.task, episode.trial);
      return createReplayLanguageModel(path, entry === undefined ? undefined : index.read(entry), episode.task.id);
    },
    coverage: (tasks) => replayCoverage(index, tasks),
  };
}

/**
 * One pass over the planned tasks holding only what it reports: which of the file's task ids were matched (a flag
 * per line, for the outputs of tasks not in the run) and the tasks with missing outputs, one entry per task (the
 * runner counts them as tasks): `id` when no trial has one, `id#1` or `id#{0,2}` for the trials that lack one.
 * Lines pinned to a trial the run does not have are refused: the user asked for fewer trials than the file holds.
 */
function replayCoverage(index: ReplayFileIndex, tasks: Iterable<PlannedTask>): OutputCoverage {
  const missing: string[] = [];
  // By each task id's first entry: the file's ids are not copied.
  const matched = new Uint8Array(index.entryCount);
  // Lines of planned tasks pinned to a trial past the run's, flagged by entry (a line may match two planned ids).
  const pastTrials = new Uint8Array(index.entryCount);
  let firstPast: { entry: number; taskId: string; trials: number } | undefined;
  for (const { task, trials } of tasks) {
    const missingTrials: number[] = [];
    for (let trial = 0; trial < trials; trial += 1) {
      if (findReplayEntry(index, task, trial) === undefined) missingTrials.push(trial);
    }
    for (const candidate of candidateIds(task)) {
      const entries = index.entriesByTaskId.get(candidate);
      if (entries === undefined) continue;
      matched[firstEntry(entries)] = 1;
      for (const entry of typeof entries === 'number' ? [entries] : entries) {
        const trial = index.trialOf(entry);
        if (trial === undefined || trial < trials) continue;
        pastTrials[entry] = 1;
        if (firstPast === undefined || entry < firstPast.entry) firstPast = { entry, taskId: candidate, trials };
      }
    }
    if (missingTrials.length === 0) continue;
    if (missingTrials.length === trials) missing.push(task.id);
    else missing.push(missingTrials.length === 1 ? `${task.id}#${missingTrials[0]}` : `${task.id}#{${missingTrials.join(',')}}`);
  }
  if (firstPast !== undefined) throw pastTrialsError(index, firstPast, pastTrials);
  const unknownTaskIds: string[] = [];
  for (const [taskId, entries] of index.entriesByTaskId) if (matched[firstEntry(entries)] === 0) unknownTaskIds.push(taskId);
  return { missing, unknownTaskIds };
}

/** The first line (in file order) pinned past the run's trials, with how many such lines there are and the highest trial. */
function pastTrialsError(index: ReplayFileIndex, first: { entry: number; taskId: string; trials: number }, flagged: Uint8Array): ConfigError {
  const { trials } = first;
  let lines = 0;
  let highest = 0;
  for (let entry = 0; entry < index.entryCount; entry += 1) {
    if (flagged[entry] === 0) continue;
    lines += 1;
    highest = Math.max(highest, index.trialOf(entry) ?? 0);
  }
  const runTrials = trials === 1 ? '1 trial (0)' : `${trials} trials (${trials === 2 ? '0 and 1' : `0 to ${trials - 1}`})`;
  const past = highest === trials ? `trial ${trials}` : `trials ${trials} ${highest === trials + 1 ? 'and' : 'to'} ${highest}`;
  return new ConfigError('config.invalid', `replay file ${index.path} line ${index.lineNumberOf(first.entry)} holds trial ${index.trialOf(first.entry)} of task '${first.taskId}', but the run has ${runTrials}: the outputs for ${past} (${lines} ${lines === 1 ? 'line' : 'lines'}) would never be scored`, {
    fix: `pass --trials ${highest + 1} (trials: ${highest + 1} in an eval set) to score every trial the file holds for these tasks, or remove its lines for trials ${trials} and up`,
  });
}

function firstEntry(entries: number | readonly number[]): number {
  return typeof entries === 'number' ? entries : entries[0];
}

/** Task ids in files from other tools lack our suite prefix: `nestful/abc` also matches `abc`. */
function candidateIds(task: Pick<Task, 'id' | 'suite'>): Set<string> {
  const candidates = new Set([task.id]);
  for (const separator of ['/', ':']) {
    const prefix = `${task.suite.id}${separator}`;
    if (task.id.startsWith(prefix)) candidates.add(task.id.slice(prefix.length));
  }
  return candidates;
}

/** The entry that answers this trial of the task, if any. */
function findReplayEntry(index: ReplayFileIndex, task: Pick<Task, 'id' | 'suite'>, trial: number): number | undefined {
  // In file order (entry numbers are), as a scan of the whole file would meet them.
  const matching = [...candidateIds(task)].flatMap((candidate) => index.entriesByTaskId.get(candidate) ?? []).sort((a, b) => a - b);
  // A line pinned to this trial wins over a line for every trial.
  return matching.find((entry) => index.trialOf(entry) === trial) ?? matching.find((entry) => index.trialOf(entry) === undefined);
}

function createReplayLanguageModel(path: string, entry: ReplayEntry | undefined, taskId: string): LanguageModel {
  const turns: ReplayTurn[] = entry === undefined ? []
    : 'turns' in entry.line ? entry.line.turns
    : [{ content: entry.line.output, toolCalls: [] }];
  let next = 0;
  return {
    specificationVersion: 'v1',
    provider: 'replay',
    modelId: path,
    async generate(): Promise<GenerateResult> {
      const turnIndex = next;
      const turn = turns[turnIndex];
      next += 1;
      const warnings: ProviderWarning[] = entry === undefined
        ? [{ type: 'other', message: `replay file ${path} has no line for task '${taskId}': answered with an empty message` }]
        : [];
      if (turn === undefined) {
        return { message: { role: 'assistant', content: '', toolCalls: [] }, finishReason: entry === undefined ? 'other' : 'stop', usage: { inputTokens: 0, outputTokens: 0 }, warnings, raw: { request: null, response: null } };
      }
      const message: AssistantMessage = {
        role: 'assistant',
        content: turn.content,
        toolCalls: turn.toolCalls.map((call, index) => createToolCall(
          call.id ?? `replay_${turnIndex}_${index}`,
          call.name,
          call.argumentsText ?? JSON.stringify(call.arguments as JsonObject),
        )),
        ...(turn.reasoning !== undefined ? { reasoning: turn.reasoning } : {}),
      };
      return {
        message,
        finishReason: message.toolCalls.length > 0 ? 'tool-calls' : 'stop',
        usage: { inputTokens: 0, outputTokens: 0 },
        warnings,
        raw: { request: null, response: { lineNumber: entry?.lineNumber ?? null, turn: turnIndex } },
      };
    },
  };
}
