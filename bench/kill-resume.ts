/**
 * Crash safety under repeated SIGKILL (issue 14's "20 SIGKILLs of a 790-episode run"): `toolforge run funcgen
 * --model openai-compatible/stand-in --base-url <a local stand-in endpoint answering after 20 ms> --concurrency 8
 * --count 395 --trials 2` (790 episodes, a few seconds: a built-in model finishes them in a fifth of a second, too
 * fast to kill 20 times mid-run) is started as a user starts it, in a child process, and killed with SIGKILL 20
 * times at spread-out moments, each time after the child committed more
 * episodes (a threshold that rises through the run, plus a random 0-80 ms, so kills land between and during
 * group commits); after each kill `toolforge run --resume <run>` starts it again; the last one runs to the end.
 * Prints the episodes expected, rows stored, distinct (task, trial) keys, scored rows, lost (expected -
 * distinct), duplicated (rows - distinct) and rewritten (rows committed before a kill that a later process
 * stored again: a different started_at). Target: 0 lost, 0 duplicated, 0 rewritten. Asserts nothing.
 * Sizes: TOOLFORGE_BENCH_KILLS (default 20), TOOLFORGE_BENCH_KILL_TASKS (default 395; 2 trials each).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { repositoryRoot } from '../src/core/data-location.ts';
import type { BenchFigure } from './bench-figure.ts';

const kills = Number(process.env.TOOLFORGE_BENCH_KILLS ?? 20);
const taskCount = Number(process.env.TOOLFORGE_BENCH_KILL_TASKS ?? 395);
const trials = 2;
/** The stand-in endpoint's answer time: 790 episodes at --concurrency 8 then take about 2 s. */
const latencyMs = 20;
const expected = taskCount * trials;
/** A child that is still starting after this long is broken: the bench stops instead of hanging. */
const attemptBoundMs = 120_000;

type Row = { key: string; startedAt: string };

/** Committed rows as another process sees them; [] until the schema exists. */
function committedRows(dbPath: string): Row[] {
  if (!existsSync(dbPath)) return [];
  try {
    const database = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      return database.prepare("SELECT task_id || '/' || trial AS key, started_at AS startedAt FROM episodes").all() as Row[];
    } finally {
      database.close();
    }
  } catch {
    return [];
  }
}

function runIdOf(dbPath: string): string {
  const database = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (database.prepare('SELECT id FROM runs ORDER BY rowid DESC LIMIT 1').get() as { id: string }).id;
  } finally {
    database.close();
  }
}

function startChild(args: string[], cwd: string): { child: ChildProcess; exited: Promise<string>; stderr: () => string } {
  const child = spawn(process.execPath, [resolve(repositoryRoot, 'bin', 'toolforge.js'), ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const exited = new Promise<string>((resolvePromise) => child.on('exit', (code, signal) => resolvePromise(signal ?? `exit ${code}`)));
  return { child, exited, stderr: () => stderr };
}

/** A small seeded generator, so the kill moments are the same on every run of the bench. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export async function bench(): Promise<BenchFigure[]> {
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-kill-resume-'));
  const dbPath = join(directory, 'results.db');
  const random = seededRandom(20);
  const endpoint = await startStandInEndpoint(latencyMs);
  const start = performance.now();
  /** started_at of every row seen committed before a kill, to find rows a later process stored again. */
  const seenBeforeKill = new Map<string, string>();
  const committedAtKill: number[] = [];
  try {
    const firstArgs = ['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', `http://127.0.0.1:${endpoint.port}/v1`, '--concurrency', '8',
      '--count', String(taskCount), '--trials', String(trials), '--db', dbPath, '--json'];
    let args = firstArgs;
    for (let kill = 1; kill <= kills; kill += 1) {
      const before = committedRows(dbPath).length;
      // Thresholds spread over the run: kill k once at least k/(kills+2) of the episodes are in, and more than before.
      const threshold = Math.max(before + 1, Math.round((kill * expected) / (kills + 2)));
      const attempt = startChild(args, directory);
      const attemptStart = performance.now();
      let committed = before;
      while (attempt.child.exitCode === null && attempt.child.signalCode === null && performance.now() - attemptStart < attemptBoundMs) {
        committed = committedRows(dbPath).length;
        if (committed >= threshold) break;
        await sleep(5);
      }
      if (attempt.child.exitCode !== null || committed < threshold) {
        attempt.child.kill('SIGKILL');
        await attempt.exited;
        throw new Error(`attempt ${kill} ended or stalled before it could be killed (${committed} of ${expected} committed, threshold ${threshold}): ${attempt.stderr().slice(0, 400)}`);
      }
      await sleep(Math.floor(random() * 80));
      attempt.child.kill('SIGKILL');
      const how = await attempt.exited;
      if (how !== 'SIGKILL') throw new Error(`attempt ${kill} ended with ${how} before the kill landed`);
      const rows = committedRows(dbPath);
      committedAtKill.push(rows.length);
      for (const row of rows) if (!seenBeforeKill.has(row.key)) seenBeforeKill.set(row.key, row.startedAt);
      args = ['run', '--resume', runIdOf(dbPath), '--db', dbPath, '--json'];
    }
    const last = startChild(args, directory);
    const ended = await last.exited;
    if (ended !== 'exit 0') throw new Error(`the final --resume ended with ${ended}: ${last.stderr().slice(0, 400)}`);
    const seconds = (performance.now() - start) / 1000;

    const database = new Database(dbPath, { readonly: true, fileMustExist: true });
    let counts: { rows: number; keys: number; scored: number; status: string };
    let rewritten = 0;
    try {
      const runId = runIdOf(dbPath);
      counts = database.prepare(`SELECT COUNT(*) AS rows, COUNT(DISTINCT task_id || '/' || trial) AS keys, SUM(status = 'scored') AS scored,
        (SELECT status FROM runs WHERE id = @runId) AS status FROM episodes WHERE run_id = @runId`).get({ runId }) as typeof counts;
      const final = database.prepare("SELECT task_id || '/' || trial AS key, started_at AS startedAt FROM episodes WHERE run_id = ?").all(runId) as Row[];
      const finalByKey = new Map(final.map((row) => [row.key, row.startedAt]));
      for (const [key, startedAt] of seenBeforeKill) if (finalByKey.get(key) !== startedAt) rewritten += 1;
    } finally {
      database.close();
    }
    console.log(`  committed episodes at each of the ${committedAtKill.length} kills: ${committedAtKill.join(' ')}; run status at the end: ${counts.status}`);
    return [
      { name: `SIGKILLs of a ${expected}-episode run (funcgen against a ${latencyMs} ms stand-in endpoint via the CLI, then --resume; load ${loadavg()[0].toFixed(1)}), wall time`, value: seconds, unit: 's' },
      { name: 'kills landed mid-run', value: committedAtKill.length, unit: 'kills' },
      { name: 'episodes expected', value: expected, unit: 'episodes' },
      { name: 'rows stored', value: counts.rows, unit: 'rows' },
      { name: 'distinct (task, trial) keys', value: counts.keys, unit: 'keys' },
      { name: 'scored', value: counts.scored, unit: 'rows' },
      { name: 'lost (expected - distinct, target 0)', value: expected - counts.keys, unit: 'episodes' },
      { name: 'duplicated (rows - distinct, target 0)', value: counts.rows - counts.keys, unit: 'rows' },
      { name: 'rewritten (committed before a kill, stored again later; target 0)', value: rewritten, unit: `of ${seenBeforeKill.size} rows` },
    ];
  } finally {
    await endpoint.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The stand-in OpenAI-compatible endpoint of bench/scale (its own process, as a real endpoint is another machine). */
async function startStandInEndpoint(latency: number): Promise<{ port: number; stop(): Promise<void> }> {
  const server = spawn(process.execPath, ['--import', 'tsx', resolve(repositoryRoot, 'bench', 'scale', 'stand-in-server.ts'), String(latency)], {
    cwd: repositoryRoot, stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  server.stdout?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
  while (!output.includes('\n')) await once(server.stdout as NodeJS.ReadableStream, 'data');
  return {
    port: Number(output.split('\n')[0]),
    async stop() {
      server.stdin?.end();
      await once(server, 'close');
    },
  };
}

// Run directly: `node --import tsx bench/kill-resume.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const figure of await bench()) console.log(`  ${figure.name}: ${Number.isInteger(figure.value) ? figure.value : figure.value.toFixed(1)} ${figure.unit}`);
  process.exit(0);
}
