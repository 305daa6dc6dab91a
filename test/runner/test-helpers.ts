import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import type { NewRun } from '../../src/store/results-store.ts';

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
