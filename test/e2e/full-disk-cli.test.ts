/**
 * The results database stops taking writes part-way (a full disk, here a file-size limit set with prlimit, which
 * SQLite reports as an I/O error): run, sweep and eval sets keep what they stored, name what to run to continue
 * (the run's id and the --db given), and that command, run once the disk has room, finishes the work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { binPath, keylessEnvironment, spawnCli, spawnCliUnprivileged, temporaryDirectory } from './run-cli.ts';

/** Files this process writes may not grow past ~3 MB: a 2,000-task funcgen run's tasks alone are ~30 MB. */
const limited = ['prlimit', '--fsize=3000000'];
const noPrlimit = spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status !== 0 ? 'prlimit (util-linux) is not on this machine' : undefined;

test('run: stopped by the full disk while its tasks stream in, it is named with its resume command, which finishes it', { skip: noPrlimit }, async () => {
  const cwd = temporaryDirectory();
  const env = keylessEnvironment();
  const stopped = await spawnCliUnprivileged(limited, ['run', 'funcgen', '--model', 'builtin/planner', '--count', '2000', '--db', 'limited.db'], { cwd, env });
  assert.equal(stopped.code, 2, stopped.stderr);
  const named = /^run (funcgen-\S+) stopped; its finished episodes are stored\. After fixing the error below, continue it with: toolforge run --resume \1 --db limited\.db\n/m.exec(stopped.stderr);
  assert.ok(named, stopped.stderr);
  assert.match(stopped.stderr, /^error: cannot write to the results database: /m);
  const resumed = await spawnCli(['run', '--resume', named[1] as string, '--db', 'limited.db', '--json'], { cwd, env });
  assert.equal(resumed.code, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout) as { runId: string; status: string; episodes: number; passRate: number };
  assert.deepEqual([summary.runId, summary.status, summary.episodes, summary.passRate], [named[1], 'finished', 2000, 1]);
});

test('run: stopped by the full disk while storing tasks a phrasing model wrote, it says to start it again (as runs and --resume do), not to resume it', { skip: noPrlimit }, async () => {
  // A real OpenAI-wire endpoint on 127.0.0.1 for the phrasing model: its paraphrases are not a recipe's to make again.
  const writer = createServer((request, response) => {
    request.resume().on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'p', object: 'chat.completion', created: 0, model: 'writer', choices: [{ index: 0, message: { role: 'assistant', content: 'Work it out.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    });
  });
  await new Promise<void>((resolveListen) => writer.listen(0, '127.0.0.1', resolveListen));
  try {
    const cwd = temporaryDirectory();
    const env = keylessEnvironment();
    const baseUrl = `http://127.0.0.1:${(writer.address() as AddressInfo).port}/v1`;
    const args = ['run', 'funcgen', '--model', 'builtin/planner', '--count', '2000', '--transform', 'perturb:kind=paraphrase', '--phrasing-model', 'openai-compatible/writer', '--phrasing-base-url', baseUrl, '--db', 'limited.db'];
    const stopped = await spawnCliUnprivileged(limited, args, { cwd, env });
    assert.equal(stopped.code, 2, stopped.stderr);
    const named = /^run (funcgen-\S+) stopped while its tasks were being stored, and nothing can make the rest of them again, so it cannot be continued\. After fixing the error below, (start it again .*)$/m.exec(stopped.stderr);
    assert.ok(named, stopped.stderr);
    const [, runId, startAgain] = named as unknown as [string, string, string];
    assert.equal(startAgain, `start it again with the command that started it (toolforge ${args.join(' ')}), and delete this one with 'toolforge delete ${runId} --db limited.db'`);
    assert.doesNotMatch(stopped.stderr, /run --resume/);
    const refused = await spawnCli(['run', '--resume', runId, '--db', 'limited.db'], { cwd, env });
    assert.equal(refused.code, 2, refused.stderr);
    assert.ok(refused.stderr.includes(`fix: ${startAgain}`), refused.stderr);
  } finally {
    await new Promise((resolveClose) => writer.close(resolveClose));
  }
});

test('sweep and eval set: stopped by the full disk, each names the command that continues it', { skip: noPrlimit }, async () => {
  const cwd = temporaryDirectory();
  const env = keylessEnvironment();
  const sweep = await spawnCliUnprivileged(limited, ['sweep', 'funcgen', '--grid', 'core=4,6', '--model', 'builtin/planner', '--count', '2000', '--db', 'sweep.db'], { cwd, env });
  assert.equal(sweep.code, 2, sweep.stderr);
  const run = /^sweep stopped at point 1\/2: run (funcgen-\S+) stopped; its finished episodes are stored\. After fixing the error below, continue it with: toolforge run --resume \1 --db sweep\.db \(the points after it did not run\)\n/m.exec(sweep.stderr);
  assert.ok(run, sweep.stderr);
  const finished = await spawnCli(['run', '--resume', run[1] as string, '--db', 'sweep.db', '--json'], { cwd, env });
  assert.equal(finished.code, 0, finished.stderr);

  writeFileSync(join(cwd, 'set.yaml'), 'name: full\ncount: 2000\nmodels:\n  - ref: builtin/planner\nsuites:\n  - id: funcgen\n    grid: {core: [4, 6]}\n');
  const set = await spawnCliUnprivileged(limited, ['run', '--config', 'set.yaml', '--db', 'set.db'], { cwd, env });
  assert.equal(set.code, 2, set.stderr);
  assert.match(set.stderr, /^eval set stopped at cell 1\/2; its finished runs are stored\. After fixing the error below, continue it with: toolforge run --config set\.yaml --db set\.db \(finished cells are kept, the stopped one is resumed\)\n/m);
  const continued = await spawnCli(['run', '--config', 'set.yaml', '--db', 'set.db'], { cwd, env });
  assert.equal(continued.code, 0, continued.stderr);
  assert.match(continued.stderr, /^1\/2 resuming: funcgen builtin\/planner core=4\n2\/2 running: funcgen builtin\/planner core=6\n/m);
});

/** `serve` under `limit`, with an MCP client that takes its episode and keeps it (so the run starts); its exit and stderr. */
async function serveWithHangingClient(limit: readonly string[], args: readonly string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  const agentScript = resolve(import.meta.dirname, '../fixtures/mcp-scripted-agent.mjs');
  const serve = spawn(limit[0] as string, [...limit.slice(1), process.execPath, binPath, 'serve', ...args], { cwd, env: keylessEnvironment(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let agent: ReturnType<typeof spawn> | undefined;
  serve.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
    if (url !== undefined && agent === undefined) agent = spawn(process.execPath, [agentScript, '--url', url, '--policy', 'hang'], { stdio: 'ignore' });
  });
  const code = await new Promise<number | null>((resolvePromise) => serve.on('close', resolvePromise));
  agent?.kill();
  return { code, stderr };
}

test('serve and serve --resume: stopped by the full disk once a client started the run, each names the serve --resume that continues it', { skip: noPrlimit }, async () => {
  const cwd = temporaryDirectory();
  const served = await serveWithHangingClient(limited, ['funcgen', '--count', '2000', '--db', 'served.db'], cwd);
  assert.equal(served.code, 2, served.stderr);
  const named = /^run (funcgen-\S+) stopped; its finished episodes are stored\. After fixing the error below, continue it with: toolforge serve --resume \1 --db served\.db\n/m.exec(served.stderr);
  assert.ok(named, served.stderr);
  const runs = await spawnCli(['runs', '--db', 'served.db'], { cwd, env: keylessEnvironment() });
  assert.match(runs.stdout, new RegExp(`finish one with toolforge serve --resume ${named[1]} --db served\\.db`));
  // Served again on a disk still too full to store the rest of its tasks: the same line, for the same run.
  const again = await serveWithHangingClient(limited, ['--resume', named[1] as string, '--db', 'served.db'], cwd);
  assert.equal(again.code, 2, again.stderr);
  assert.match(again.stderr, new RegExp(`^run ${named[1]} stopped; its finished episodes are stored\\. After fixing the error below, continue it with: toolforge serve --resume ${named[1]} --db served\\.db\n`, 'm'));
});

test('worker: stopped by the full disk, it names the worker command that carries on, which finishes the run', { skip: noPrlimit }, async () => {
  const cwd = temporaryDirectory();
  const env = keylessEnvironment();
  const planned = await spawnCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '300', '--workers-only', '--db', 'team.db'], { cwd, env });
  assert.equal(planned.code, 0, planned.stderr);
  const runId = /toolforge worker --run (\S+)/.exec(planned.stdout + planned.stderr)?.[1] as string;
  // Room for a few episodes past what the plan stored.
  const room = ['prlimit', `--fsize=${statSync(join(cwd, 'team.db')).size + 200_000}`];
  const stopped = await spawnCliUnprivileged(room, ['worker', '--run', runId, '--db', 'team.db'], { cwd, env });
  assert.equal(stopped.code, 2, stopped.stderr);
  assert.match(stopped.stderr, new RegExp(`^worker stopped; the episodes it finished are stored, and those it held are claimed again once their leases lapse\\. After fixing the error below, start it again with: toolforge worker --run ${runId} --db team\\.db\\n`, 'm'));
  const again = await spawnCli(['worker', '--run', runId, '--db', 'team.db', '--json'], { cwd, env });
  assert.equal(again.code, 0, again.stderr);
  const report = await spawnCli(['report', runId, '--db', 'team.db', '--format', 'json'], { cwd, env });
  const summary = JSON.parse(report.stdout) as { status: string; episodes: number; passRate: number };
  assert.deepEqual([summary.status, summary.episodes, summary.passRate], ['finished', 300, 1]);
});

test('rescore and import: stopped by the full disk, each says to do it again (neither is continued), and doing so works', { skip: noPrlimit }, async () => {
  const cwd = temporaryDirectory();
  const env = keylessEnvironment();
  const ran = await spawnCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '100', '--trials', '5', '--db', 'results.db', '--json'], { cwd, env });
  assert.equal(ran.code, 0, ran.stderr);
  const runId = (JSON.parse(ran.stdout) as { runId: string }).runId;
  // SQLite writes the copy to the WAL file first: it may not grow past 300 KB, a third of the run's tasks.
  const room = ['prlimit', '--fsize=300000'];
  const rescore = await spawnCliUnprivileged(room, ['rescore', runId, '--db', 'results.db'], { cwd, env });
  assert.equal(rescore.code, 2, rescore.stderr);
  assert.match(rescore.stderr, new RegExp(`^rescore of run ${runId} stopped; a rescore is made again, not continued\\. After fixing the error below, rescore it again with: toolforge rescore ${runId} --db results\\.db\\n`, 'm'));
  // The half-made copy is deleted; when the full disk refused that too, runs names the rescore and the delete.
  const runs = await spawnCli(['runs', '--db', 'results.db', '--json'], { cwd, env });
  const copies = (JSON.parse(runs.stdout) as { id: string }[]).filter((run) => run.id !== runId);
  if (copies.length > 0) {
    const listed = await spawnCli(['runs', '--db', 'results.db'], { cwd, env });
    assert.match(listed.stdout, new RegExp(`^1 rescore stopped part-way \\(no process runs it\\): rescore it again with toolforge rescore ${runId} --db results\\.db \\(a rescore is made again, not continued\\), and delete this one with 'toolforge delete ${copies[0]!.id} --db results\\.db'$`, 'm'));
    assert.equal((await spawnCli(['delete', copies[0]!.id, '--db', 'results.db'], { cwd, env })).code, 0);
  }
  const again = await spawnCli(['rescore', runId, '--db', 'results.db', '--json'], { cwd, env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal((JSON.parse(again.stdout) as { passRate: number }).passRate, 1);

  assert.equal((await spawnCli(['export', runId, '--db', 'results.db', '--out', 'run.jsonl'], { cwd, env })).code, 0);
  const imported = await spawnCliUnprivileged(['prlimit', '--fsize=1500000'], ['import', 'run.jsonl', '--db', 'moved.db'], { cwd, env });
  assert.equal(imported.code, 2, imported.stderr);
  assert.match(imported.stderr, /^import of run\.jsonl stopped; nothing of it was stored \(one transaction, rolled back\)\. After fixing the error below, import it again with: toolforge import run\.jsonl --db moved\.db\n/m);
  const importedAgain = await spawnCli(['import', 'run.jsonl', '--db', 'moved.db'], { cwd, env });
  assert.equal(importedAgain.code, 0, importedAgain.stderr);
  assert.match(importedAgain.stdout, new RegExp(`^imported run ${runId} `));
});

test('a full disk when a new database is first written is said as such (not "not a ToolForge results database"), and an import leaves no half-made file', { skip: noPrlimit }, async () => {
  const cwd = temporaryDirectory();
  const env = keylessEnvironment();
  // Too little room for the new file's schema (64 KB pages).
  const tiny = ['prlimit', '--fsize=300000'];
  const run = await spawnCliUnprivileged(tiny, ['run', 'funcgen', '--model', 'builtin/planner', '--db', 'fresh.db'], { cwd, env });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^error: cannot write to \S*fresh\.db: the disk (is full|reported an I\/O error) \(.+\)\n {2}fix: free some disk space, or check the disk holding \S*fresh\.db \(removed, full, failing\); or pass --db <a path on another disk>\n/);
  assert.doesNotMatch(run.stderr, /not a ToolForge results database/);
  // With room, the same file is used as it is.
  const again = await spawnCli(['run', 'funcgen', '--model', 'builtin/planner', '--count', '3', '--db', 'fresh.db', '--json'], { cwd, env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await spawnCli(['export', 'latest', '--db', 'fresh.db', '--out', 'run.jsonl'], { cwd, env })).code, 0);
  const imported = await spawnCliUnprivileged(tiny, ['import', 'run.jsonl', '--db', 'made/for-it.db'], { cwd, env });
  assert.equal(imported.code, 2, imported.stderr);
  assert.match(imported.stderr, /cannot write to \S*for-it\.db: the disk/);
  assert.equal(existsSync(join(cwd, 'made')), false, 'the folder made for the database is removed with it');
});

test('--out on a full disk says so, with a fix about room rather than folders, and leaves no partial file', { skip: noPrlimit }, async () => {
  const cwd = temporaryDirectory();
  const generated = await spawnCliUnprivileged(['prlimit', '--fsize=100000'], ['generate', 'funcgen', '--count', '500', '--out', 'tasks.jsonl'], { cwd, env: keylessEnvironment() });
  assert.equal(generated.code, 2, generated.stderr);
  assert.match(generated.stderr, /^error: cannot write --out \S*tasks\.jsonl: the file would be larger than this process may write \(a file-size limit, ulimit -f\)\n {2}fix: free some disk space \(or raise the quota or file-size limit\), or pass --out with a path on another disk/);
  assert.equal(existsSync(join(cwd, 'tasks.jsonl')), false);
});
