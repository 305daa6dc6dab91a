/**
 * The figures every suite produces today on small fixed inputs: builtin models in every mode, and a
 * replay of recorded outputs. figures-pinned.test.ts compares them with figures-pinned.json, so a
 * contract change that moves any score, failure code, detail or metric fails loudly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '../../src/core/json.ts';
import { canonicalJson } from '../../src/core/json.ts';
import type { Mode } from '../../src/core/mode.ts';
import { hasDataset } from '../../src/core/data-location.ts';
import type { Task } from '../../src/core/task.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

export type PinnedCase = { suite: string; model: string; mode: Mode; count: number; seed: number; params?: Record<string, string> };

/** Which cases need ../shared data (skipped without it). */
export const pinnedCases: PinnedCase[] = [
  ...(['calls', 'react'] as const).flatMap((mode) => ['oracle', 'random', 'planner'].map((model) => ({ suite: 'funcgen', model: `builtin/${model}`, mode, count: 4, seed: 5 }))),
  ...(['calls', 'react', 'sequence'] as const).flatMap((mode) => ['oracle', 'random'].map((model) => ({ suite: 'nestful', model: `builtin/${model}`, mode, count: 4, seed: 5 }))),
  ...['oracle', 'random'].map((model) => ({ suite: 'webapi', model: `builtin/${model}`, mode: 'code' as const, count: 4, seed: 5 })),
  // Replays of one fixed answer per task: wrong, unparsable and partly right answers.
  { suite: 'funcgen', model: 'replay', mode: 'calls', count: 3, seed: 5 },
  { suite: 'nestful', model: 'replay', mode: 'calls', count: 3, seed: 5 },
  { suite: 'nestful', model: 'replay', mode: 'sequence', count: 3, seed: 5 },
  { suite: 'webapi', model: 'replay', mode: 'code', count: 3, seed: 5 },
];

export function caseName(pinned: PinnedCase): string {
  return `${pinned.suite} ${pinned.model} ${pinned.mode}`;
}

export function caseNeedsSharedData(pinned: PinnedCase): boolean {
  return pinned.suite === 'webapi' ? !hasDataset('wapiibench') : false;
}

const replayAnswers: Record<string, (task: Task, index: number) => string> = {
  nestful: (_task, index) => ['[]', 'the answer is 4', '[{"name":"add","label":"$var_1","arguments":{"arg_0":1,"arg_1":2}}]'][index % 3],
  webapi: (_task, index) => [
    "```js\nconst axios = require('axios');\naxios.get('https://example.com/x');\n```",
    'no code here',
    "```js\naxios.post('/v1/items', { name: 'a' }, { headers: { 'Content-Type': 'application/json' } });\n```",
  ][index % 3],
};

function replayLine(pinned: PinnedCase, task: Task, index: number): string {
  if (pinned.mode === 'calls') {
    const tool = task.tools[index % task.tools.length];
    return JSON.stringify({ taskId: task.id, turns: [
      { content: '', toolCalls: [{ name: tool.name, arguments: {} }] },
      { content: '', toolCalls: [{ name: task.tools[0].name, argumentsText: '{"x": ' }] },
      { content: 'The answer is 7.' },
    ] });
  }
  return JSON.stringify({ taskId: task.id, output: replayAnswers[pinned.suite](task, index) });
}

/** The figures of one case: every episode's score and the run's metrics, as stored. */
export async function measureCase(pinned: PinnedCase): Promise<JsonValue> {
  const suite = getSuite(pinned.suite);
  const params = resolveKnobs(suite.id, suite.knobs, pinned.params ?? {});
  const tasks = await generateTasks(suite, { seed: pinned.seed, count: pinned.count, params, validate: false });
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-pinned-'));
  const store = openResultsStore(':memory:');
  try {
    let modelRef = pinned.model;
    if (pinned.model === 'replay') {
      const path = join(directory, 'replay.jsonl');
      writeFileSync(path, tasks.map((task, index) => replayLine(pinned, task, index)).join('\n'));
      modelRef = `replay/${path}`;
    }
    const summary = await runEvaluation({ suite, tasks, modelRef, mode: pinned.mode, seed: pinned.seed, params, store, concurrency: 1 });
    const episodes = store.listEpisodes(summary.runId).map((episode) => ({
      taskId: episode.taskId, status: episode.status, termination: episode.termination, score: episode.score,
    }));
    episodes.sort((a, b) => a.taskId.localeCompare(b.taskId));
    return JSON.parse(canonicalJson({ episodes, metrics: summary.metrics, passRate: summary.passRate, failures: summary.failures })) as JsonValue;
  } finally {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
