import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import type { Task } from '../../src/core/task.ts';
import type { NewRun, ResultsStore } from '../../src/store/results-store.ts';

/** A fresh temporary directory, removed when the test file ends. */
export function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-runner-'));
  after(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** Instant, recorded sleeps and a fixed jitter draw for retry tests. */
export function recordingRetry(maxAttempts = 5): { sleeps: number[]; policy: { maxAttempts: number; sleep(delayMs: number): Promise<void>; random(): number } } {
  const sleeps: number[] = [];
  return { sleeps, policy: { maxAttempts, sleep: async (delayMs: number) => { sleeps.push(delayMs); }, random: () => 0.5 } };
}

export function sampleRun(id: string, overrides: Partial<NewRun> = {}): NewRun {
  return {
    id,
    createdAt: '2026-01-02T03:04:05.000Z',
    suite: { id: 'fake-sum', version: '1' },
    model: 'builtin/oracle',
    baseUrl: null,
    mode: null,
    trials: 2,
    concurrency: 1,
    seed: 7,
    params: {},
    settings: { temperature: 0 },
    provenance: {
      toolforgeVersion: '0.1.0', git: null, nodeVersion: 'v20.0.0', platform: 'linux-x64', suite: { id: 'fake-sum', version: '1' },
      model: { ref: 'builtin/oracle', baseUrl: null, settings: { temperature: 0 } }, seed: 7, params: {}, mode: null, trials: 2, cliArgs: ['run', 'fake-sum'],
    },
    ...overrides,
  };
}

export function sampleEpisode(runId: string, taskId: string, trial: number, overrides: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    schemaVersion: 1,
    runId,
    taskId,
    model: 'builtin/oracle',
    mode: 'calls',
    trial,
    status: 'scored',
    termination: 'final-answer',
    messages: [
      { role: 'user', content: 'What is 1 + 2?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'add', argumentsText: '{"a":1,"b":2}', arguments: { a: 1, b: 2 } }] },
      { role: 'tool', toolCallId: 'call_1', toolName: 'add', result: { ok: true, output: 3 } },
      { role: 'assistant', content: '3', toolCalls: [] },
    ],
    score: { value: 1, passed: true, reason: 'correct sum', details: { toolCalls: 1 } },
    usage: { inputTokens: 10, outputTokens: 2 },
    attempts: 1,
    startedAt: '2026-01-02T03:04:06.000Z',
    endedAt: '2026-01-02T03:04:07.000Z',
    durationMs: 1000,
    error: null,
    finalState: null,
    calls: [],
    warnings: [],
    ...overrides,
  };
}

/**
 * A run of every task x `trials` episodes, each transcript ~`transcriptChars` of JSON (a question of its own, then the
 * task's right answer, so it scores as passed), saved 500 per transaction. For tests of what memory a whole-run read holds.
 */
export function saveLargeRun(store: ResultsStore, run: NewRun, tasks: readonly Task[], transcriptChars: number): void {
  store.createRun(run, tasks);
  let batch: EpisodeRecord[] = [];
  for (const task of tasks) {
    for (let trial = 0; trial < run.trials; trial += 1) {
      const question = `${task.id} trial ${trial}: `.repeat(Math.ceil(transcriptChars / (task.id.length + 12)));
      const answer = String((task.expected as { answer?: unknown }).answer ?? '');
      batch.push(sampleEpisode(run.id, task.id, trial, { messages: [{ role: 'user', content: question }, { role: 'assistant', content: answer, toolCalls: [] }] }));
      if (batch.length === 500) {
        store.saveEpisodes(batch);
        batch = [];
      }
    }
  }
  store.saveEpisodes(batch);
  store.setRunStatus(run.id, 'finished');
}

/**
 * Live objects on the heap after a full collection, in bytes (compiled code left out: V8 keeps optimising for a
 * while): what memory tests compare, never time. As test/suites/stateful/backend-memory.test.ts measures.
 */
export function liveHeapBytes(): number {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return v8.getHeapSpaceStatistics().filter((space) => space.space_name !== 'code_space').reduce((sum, space) => sum + space.space_used_size, 0);
}
