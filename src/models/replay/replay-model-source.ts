/**
 * `replay/<file.jsonl>`: scores stored outputs without calling a model. Each episode gets a fresh
 * LanguageModel that answers each generate with the next recorded turn; a task the file does not
 * cover gets an empty answer and a warning, so it is scored as a failure (as official scorers do).
 */
import type { JsonObject } from '../../core/json.ts';
import type { AssistantMessage } from '../../core/message.ts';
import type { Task } from '../../core/task.ts';
import { createToolCall } from '../../core/tool.ts';
import type { EpisodeContext, GenerateResult, LanguageModel, ModelSource, OutputCoverage, ProviderWarning } from '../spec.ts';
import type { ReplayEntry, ReplayTurn } from './replay-file.ts';
import { readReplayFile } from './replay-file.ts';

export function createReplayModelSource(path: string, ref = `replay/${path}`): ModelSource {
  const entries = readReplayFile(path);
  const index = indexReplayEntries(entries);
  return {
    ref,
    forEpisode(episode: EpisodeContext): LanguageModel {
      const entry = findReplayEntry(index, episode.task, episode.trial);
      return createReplayLanguageModel(path, entry, episode.task.id);
    },
    coverage: (episodes) => replayCoverage(entries, episodes),
  };
}

/** The file's lines by task id, in file order: one lookup per episode, not a scan of the file (100,000-line files). */
type ReplayIndex = ReadonlyMap<string, readonly ReplayEntry[]>;

function indexReplayEntries(entries: readonly ReplayEntry[]): ReplayIndex {
  const index = new Map<string, ReplayEntry[]>();
  for (const entry of entries) {
    const list = index.get(entry.line.taskId);
    if (list) list.push(entry);
    else index.set(entry.line.taskId, [entry]);
  }
  return index;
}

function replayCoverage(entries: readonly ReplayEntry[], episodes: Iterable<{ task: Pick<Task, 'id' | 'suite'>; trial: number }>): OutputCoverage {
  const missing: string[] = [];
  const used = new Set<ReplayEntry>();
  const index = indexReplayEntries(entries);
  const trialsByTask = new Map<string, { task: Pick<Task, 'id' | 'suite'>; trials: number[]; missingTrials: number[] }>();
  for (const { task, trial } of episodes) {
    const byTask = trialsByTask.get(task.id) ?? { task, trials: [], missingTrials: [] };
    trialsByTask.set(task.id, byTask);
    byTask.trials.push(trial);
    const entry = findReplayEntry(index, task, trial);
    if (entry) used.add(entry);
    else byTask.missingTrials.push(trial);
  }
  for (const [taskId, { trials, missingTrials }] of trialsByTask) {
    if (missingTrials.length === 0) continue;
    if (missingTrials.length === trials.length) missing.push(taskId);
    else missing.push(...missingTrials.map((trial) => `${taskId}#${trial}`));
  }
  const plannedIds = new Set<string>();
  for (const { task } of trialsByTask.values()) {
    plannedIds.add(task.id);
    for (const separator of ['/', ':']) {
      const prefix = `${task.suite.id}${separator}`;
      if (task.id.startsWith(prefix)) plannedIds.add(task.id.slice(prefix.length));
    }
  }
  const unknownTaskIds = [...new Set(entries.filter((entry) => !plannedIds.has(entry.line.taskId)).map((entry) => entry.line.taskId))];
  return { missing, unknownTaskIds };
}

/** Task ids in files from other tools lack our suite prefix: `nestful/abc` also matches `abc`. */
function findReplayEntry(index: ReplayIndex, task: Pick<Task, 'id' | 'suite'>, trial: number): ReplayEntry | undefined {
  const candidates = new Set([task.id]);
  for (const separator of ['/', ':']) {
    const prefix = `${task.suite.id}${separator}`;
    if (task.id.startsWith(prefix)) candidates.add(task.id.slice(prefix.length));
  }
  // In file order, as a scan of the whole file would meet them.
  const matching = [...candidates].flatMap((candidate) => index.get(candidate) ?? []).sort((a, b) => a.lineNumber - b.lineNumber);
  // A line pinned to this trial wins over a line for every trial.
  return matching.find((entry) => entry.line.trial === trial) ?? matching.find((entry) => entry.line.trial === undefined);
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
