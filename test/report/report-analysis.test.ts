import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import type { Score } from '../../src/core/score.ts';
import { difficultyCurves } from '../../src/report/difficulty-curves.ts';
import { leaderboard } from '../../src/report/leaderboard.ts';
import { leaderboardTable } from '../../src/report/analysis-tables.ts';
import { defaultPrices, priceOf, readPriceFile } from '../../src/report/model-prices.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCosts } from '../../src/report/run-costs.ts';
import type { RunReport } from '../../src/report/run-report.ts';

const pass: Score = { value: 1, passed: true, reason: 'ok' };
const wrong: Score = { value: 0, passed: false, reason: 'wrong', failure: 'result.wrong' };
const early: Score = { value: 0, passed: false, reason: 'early', failure: 'arguments.value-not-yet-known' };

function episode(runId: string, model: string, taskId: string, score: Score | null, durationMs = 100, usage = { inputTokens: 0, outputTokens: 0 }): EpisodeRecord {
  // Cast: the record also carries call records and warnings on newer schemas, which these figures never read.
  return {
    schemaVersion: 1, runId, taskId, model, mode: 'calls', trial: 0, status: score ? 'scored' : 'infrastructure-error',
    termination: score ? 'final-answer' : null, messages: [], score, usage, attempts: 1,
    startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:00:01.000Z', durationMs, error: score ? null : { code: 'provider.server-error', message: '503' },
    finalState: null, calls: [], warnings: [],
  } as EpisodeRecord;
}

function report(runId: string, model: string, suite: string, episodes: EpisodeRecord[], levels: Record<string, Record<string, number | string>>): RunReport {
  const scored = episodes.filter((item) => item.score);
  const passed = scored.filter((item) => item.score?.passed).length;
  return {
    summary: {
      runId, suite, model, mode: 'calls', tasks: Object.keys(levels).length, trials: 1, episodes: scored.length, infrastructureErrors: episodes.length - scored.length,
      passRate: scored.length === 0 ? 0 : passed / scored.length, passRateCI95: [0, 1], metrics: {}, failures: {}, tables: [],
    },
    startedAt: null,
    episodes,
    difficultyAxes: [{ name: 'core', knob: 'core', description: 'core functions' }, { name: 'restate', knob: 'restate', description: 'never varies here' }],
    taskLevels: levels,
  };
}

// Two runs of model A at core 5 and 10 (a sweep), one of model B at core 5; `restate` is the same everywhere.
const levels5 = { t1: { core: 5, restate: 'false' }, t2: { core: 5, restate: 'false' }, t3: { core: 5, restate: 'false' } };
const levels10 = { t1: { core: 10, restate: 'false' }, t2: { core: 10, restate: 'false' } };
const runA5 = report('a5', 'model/a', 'funcgen', [episode('a5', 'model/a', 't1', pass, 10), episode('a5', 'model/a', 't2', pass, 20), episode('a5', 'model/a', 't3', wrong, 30)], levels5);
const runA10 = report('a10', 'model/a', 'funcgen', [episode('a10', 'model/a', 't1', early, 40), episode('a10', 'model/a', 't2', null, 999)], levels10);
const runB5 = report('b5', 'model/b', 'funcgen', [episode('b5', 'model/b', 't1', pass), episode('b5', 'model/b', 't2', pass), episode('b5', 'model/b', 't3', pass)], levels5);

describe('difficulty curves', () => {
  test('pool runs per model and level, with Wilson intervals and failures; axes with one level are left out', () => {
    const [curve, ...others] = difficultyCurves([runA5, runA10, runB5]);
    assert.equal(others.length, 0, 'restate never varies');
    assert.equal(curve.axis, 'core');
    assert.deepEqual(curve.levels, [5, 10]);
    assert.deepEqual(curve.series, ['model/a', 'model/b']);
    const rounded = curve.points.map((point) => [point.series, point.level, point.scored, point.passed, point.passRateCI95.map((bound) => Math.round(bound * 1e4) / 1e4), point.failures]);
    assert.deepEqual(rounded, [
      // 2/3: Wilson [0.2077, 0.9385]; 0/1: [0, 0.7935] (the infrastructure error is not scored).
      ['model/a', 5, 3, 2, [0.2077, 0.9385], { 'result.wrong': 1 }],
      ['model/a', 10, 1, 0, [0, 0.7935], { 'arguments.value-not-yet-known': 1 }],
      ['model/b', 5, 3, 3, [0.4385, 1], {}],
    ]);
  });

  test('one run whose tasks vary along an axis gets its own curve; text levels sort after numbers', () => {
    const mixed = report('m', 'model/a', 'webapi', [episode('m', 'model/a', 'x', pass), episode('m', 'model/a', 'y', wrong), episode('m', 'model/a', 'z', pass)],
      { x: { core: 'post' }, y: { core: 3 }, z: { core: 'get' } });
    assert.deepEqual(difficultyCurves([mixed])[0].levels, [3, 'get', 'post']);
    assert.deepEqual(difficultyCurves([runB5]), []);
  });
});

describe('leaderboard, costs and prices', () => {
  test('models x suites, pooled over runs, best first', () => {
    const other = report('b-n', 'model/b', 'nestful', [episode('b-n', 'model/b', 'n1', wrong)], { n1: { core: 1 } });
    const board = leaderboard([runA5, runA10, runB5, other]);
    assert.deepEqual(board.suites, ['funcgen', 'nestful']);
    assert.deepEqual(board.rows.map((row) => [row.model, row.cells.funcgen?.scored, row.cells.funcgen?.passed, row.cells.nestful?.scored ?? null, row.meanPassRate]), [
      ['model/b', 3, 3, 1, 0.5],
      ['model/a', 4, 2, null, 0.5],
    ]);
  });

  test('a model run in two modes of one suite has a row per mode (pooled, they would hide the difference)', () => {
    const react = report('a5r', 'model/a', 'funcgen', [episode('a5r', 'model/a', 't1', wrong), episode('a5r', 'model/a', 't2', wrong)], levels5);
    react.summary.mode = 'react';
    const board = leaderboard([runA5, react, runB5]);
    assert.deepEqual(board.rows.map((row) => [row.model, row.cells.funcgen?.scored, row.meanPassRate]), [
      ['model/b', 3, 1], ['model/a (calls)', 3, 2 / 3], ['model/a (react)', 2, 0],
    ]);
  });

  test('a model run with and without transforms of one suite has a row per variant; its difficulty series too', () => {
    const drifted = { ...report('a5d', 'model/a', 'funcgen', [episode('a5d', 'model/a', 't1', wrong), episode('a5d', 'model/a', 't2', wrong)], levels5), transforms: 'drift:op=all' };
    const board = leaderboard([runA5, drifted, runB5]);
    assert.deepEqual(board.rows.map((row) => [row.model, row.cells.funcgen?.scored]), [
      ['model/b', 3], ['model/a (untransformed)', 3], ['model/a (drift:op=all)', 2],
    ]);
    const curves = difficultyCurves([runA5, runA10, drifted]);
    assert.deepEqual(curves.find((curve) => curve.axis === 'core')?.series, ['model/a (drift:op=all)', 'model/a (untransformed)']);
  });

  test('one model reference at two endpoints or two temperatures has a row per configuration; its difficulty series too', () => {
    const second = { ...report('a5s', 'openai-compatible/qwen3', 'funcgen', [episode('a5s', 'openai-compatible/qwen3', 't1', wrong)], levels5), modelSettings: 'base-url=http://127.0.0.1:8002/v1' };
    const first = { ...report('a5f', 'openai-compatible/qwen3', 'funcgen', [episode('a5f', 'openai-compatible/qwen3', 't1', pass), episode('a5f', 'openai-compatible/qwen3', 't2', pass)], levels5), modelSettings: 'base-url=http://127.0.0.1:8001/v1' };
    const board = leaderboard([first, second, runB5]);
    assert.deepEqual(board.rows.map((row) => [row.model, row.cells.funcgen?.scored, row.meanPassRate]), [
      ['model/b', 3, 1], ['openai-compatible/qwen3 (base-url=http://127.0.0.1:8001/v1)', 2, 1], ['openai-compatible/qwen3 (base-url=http://127.0.0.1:8002/v1)', 1, 0],
    ]);
    // A run at the default settings beside one at another temperature, and one run per configuration in another suite.
    const warm = { ...runA10, modelSettings: 'temperature=0.7' };
    assert.deepEqual(leaderboard([runA5, warm]).rows.map((row) => row.model), ['model/a (default settings)', 'model/a (temperature=0.7)']);
    assert.deepEqual(difficultyCurves([runA5, warm]).find((curve) => curve.axis === 'core')?.series, ['model/a (default settings)', 'model/a (temperature=0.7)']);
    // The same settings on every run: one row, named by the model alone.
    assert.deepEqual(leaderboard([{ ...runA5, modelSettings: 'temperature=0' }, { ...runA10, modelSettings: 'temperature=0' }]).rows.map((row) => [row.model, row.cells.funcgen?.scored]), [['model/a', 4]]);
  });

  test('a model with no scored episode (all infrastructure errors) has no mean, shown as -, and ranks after those with one', () => {
    const down = report('d', 'model/down', 'funcgen', [], {});
    const board = leaderboard([down, runB5]);
    assert.deepEqual(board.rows.map((row) => [row.model, row.cells.funcgen?.scored, row.meanPassRate]), [['model/b', 3, 1], ['model/down', 0, null]]);
    assert.deepEqual(leaderboardTable(board).rows.map((row) => [row[0], row[1], row[2]]), [['model/b', '100.0% [43.9%, 100.0%] n=3', '100.0%'], ['model/down', '-', '-']]);
  });

  test('tokens over every episode, cost at the model price, latency percentiles over scored episodes', () => {
    const priced = report('p', 'openai/gpt-4.1', 'funcgen', [
      episode('p', 'openai/gpt-4.1', 't1', pass, 100, { inputTokens: 1_000_000, outputTokens: 10_000 }),
      episode('p', 'openai/gpt-4.1', 't2', wrong, 300, { inputTokens: 500_000, outputTokens: 0 }),
      episode('p', 'openai/gpt-4.1', 't3', null, 9_999, { inputTokens: 100_000, outputTokens: 0 }),
    ], { t1: { core: 5 }, t2: { core: 5 }, t3: { core: 5 } });
    const costs = runCosts(priced);
    assert.equal(costs.inputTokens, 1_600_000);
    assert.equal(costs.outputTokens, 10_000);
    // 1.6 M x $2 + 0.01 M x $8
    assert.ok(Math.abs((costs.costUsd as number) - 3.28) < 1e-12);
    assert.deepEqual(costs.latencyMs, { p50: 200, p90: 280, p99: 298 });
    assert.equal(runCosts(report('u', 'openai-compatible/qwen3', 'funcgen', [], {})).costUsd, null);
    assert.equal(runCosts(report('u', 'openai-compatible/qwen3', 'funcgen', [], {})).latencyMs, null);
  });

  test('prices: exact reference first, then the longest matching prefix*', () => {
    const prices = { ...defaultPrices, 'openai/*': { input: 9, output: 9 }, 'openai/gpt-4.1*': { input: 1, output: 1 } };
    assert.deepEqual(priceOf(prices, 'openai/gpt-4.1'), { input: 2, output: 8 });
    assert.deepEqual(priceOf(prices, 'openai/gpt-4.1-2025-04-14'), { input: 1, output: 1 });
    assert.deepEqual(priceOf(prices, 'openai/other'), { input: 9, output: 9 });
    assert.deepEqual(priceOf(defaultPrices, 'builtin/noisy?p=0.3'), { input: 0, output: 0 });
    assert.equal(priceOf(defaultPrices, 'anthropic/unknown'), undefined);
  });

  test('a price file\'s prefix* covers the built-in prices under it; its exact keys win; built-in and replay models stay free', () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolforge-prices-'));
    const file = (prices: object): string => {
      const path = join(directory, `${Object.keys(prices).join('-').replaceAll(/[/*]/g, '_')}.json`);
      writeFileSync(path, JSON.stringify(prices));
      return path;
    };
    const openai = readPriceFile(file({ 'openai/*': { input: 1, output: 1 } }));
    assert.deepEqual(priceOf(openai, 'openai/gpt-4.1'), { input: 1, output: 1 });
    assert.deepEqual(priceOf(openai, 'anthropic/claude-opus-4-1'), { input: 15, output: 75 });
    const everything = readPriceFile(file({ '*': { input: 3, output: 4 } }));
    assert.deepEqual(priceOf(everything, 'openai/gpt-4.1'), { input: 3, output: 4 });
    assert.deepEqual(priceOf(everything, 'builtin/planner'), { input: 0, output: 0 });
    assert.deepEqual(priceOf(everything, 'replay/x.jsonl'), { input: 0, output: 0 });
    const both = readPriceFile(file({ 'openai/*': { input: 1, output: 1 }, 'openai/gpt-4.1': { input: 5, output: 5 } }));
    assert.deepEqual(priceOf(both, 'openai/gpt-4.1'), { input: 5, output: 5 });
    assert.deepEqual(priceOf(both, 'openai/gpt-4.1-mini'), { input: 1, output: 1 });
  });
});
