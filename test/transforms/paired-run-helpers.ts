/**
 * What the paired-run transform tests share: a run's recorded assistant turns written as a replay file (so old-schema
 * gold can be replayed on transformed tasks), and the source tasks whose gold calls a drifted API refuses, computed
 * from the change log alone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import type { Task, TransformRecord } from '../../src/core/task.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { driftMapperOf } from '../../src/transforms/schema-drift.ts';

export type ReplayFileWriter = (store: ResultsStore, runId: string, keyOf: (taskId: string) => string, name: string) => string;

/**
 * A writer of replay files into a fresh temporary folder (removed after the test file): each call writes a run's
 * assistant turns, keyed by `keyOf(taskId)`, to `name` and returns the path.
 */
export function replayFileWriter(prefix: string): ReplayFileWriter {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(directory, { recursive: true, force: true }));
  return (store, runId, keyOf, name) => {
    const lines = store.listEpisodes(runId).map((episode) => JSON.stringify({
      taskId: keyOf(episode.taskId),
      turns: episode.messages.flatMap((message) => (message.role === 'assistant' ? [{
        content: message.content,
        toolCalls: message.toolCalls.map((call) => ({ id: call.id, name: call.name, argumentsText: call.argumentsText })),
      }] : [])),
    }));
    const path = join(directory, name);
    writeFileSync(path, lines.join('\n'));
    return path;
  };
}

/** The first transform applied to a transformed task (the drift record, in these tests). */
export function firstTransformOf(task: Task): TransformRecord {
  const record = task.origin?.transforms[0];
  assert.ok(record, `task ${task.id} has no transform`);
  return record;
}

/** Source task ids whose gold calls (the baseline oracle's recorded calls) the drifted API rejects, computed from the change log. */
export function rejectedSources(store: ResultsStore, baselineRunId: string, drifted: readonly Task[]): string[] {
  const rejected: string[] = [];
  for (const episode of store.listEpisodes(baselineRunId)) {
    const task = drifted.find((candidate) => candidate.origin?.taskId === episode.taskId);
    assert.ok(task, `no drifted task comes from ${episode.taskId}`);
    const mapper = driftMapperOf(firstTransformOf(task));
    const calls = episode.calls.flatMap((call) => (call.type === 'tool' && call.arguments ? [{ name: call.name, arguments: call.arguments }] : []));
    assert.ok(calls.length > 0);
    if (calls.some((call) => !mapper.serve(call).ok)) rejected.push(episode.taskId);
  }
  return rejected.sort();
}
