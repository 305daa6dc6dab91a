/**
 * The PostgreSQL server behind a run goes away mid-run (killed, as a crash or a failover does): the run says which run
 * stopped and the command that continues it, and once the server is back that command finishes it, every episode
 * stored once. A real server from the Debian package, killed with SIGKILL and started again on the same data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ResultsStore } from '../../src/store/results-store.ts';
import { binPath, keylessEnvironment, spawnCli, temporaryDirectory } from '../e2e/run-cli.ts';
import { describeWithPostgres } from '../postgres-server.ts';

describeWithPostgres('a PostgreSQL server gone mid-run', (server) => {
  test('the run is named with its resume line; with the server back, run --resume finishes it, each episode stored once', async () => {
    const cwd = temporaryDirectory();
    const env = keylessEnvironment();
    const child = spawn(process.execPath, [binPath, 'run', 'funcgen', '--model', 'builtin/planner', '--count', '1000', '--trials', '5', '--db', server.url], {
      cwd, env, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The server is killed once the run has stored some episodes, and well before its 5,000.
    const watcher: ResultsStore = openResultsStore(server.url);
    let runId: string | undefined;
    try {
      for (let waited = 0; ; waited += 50) {
        assert.ok(waited < 60_000, `the run stored no episodes within 60 s: ${stderr}`);
        runId ??= watcher.listRuns()[0]?.id;
        if (runId !== undefined && watcher.countEpisodes(runId).scored >= 200) break;
        await sleep(50);
      }
    } finally {
      server.kill();
      try {
        watcher.close();
      } catch {
        // Its server is gone.
      }
    }
    assert.equal(await exited, 2, stderr);
    const named = new RegExp(`^run ${runId} stopped; its finished episodes are stored\\. After fixing the error below, continue it with: toolforge run --resume ${runId} --db postgres://toolforge@127\\.0\\.0\\.1:${server.port}/postgres\\n`, 'm');
    assert.match(stderr, named);
    assert.match(stderr, /^error: .*PostgreSQL/m);

    await server.restart();
    const resumed = await spawnCli(['run', '--resume', runId as string, '--db', server.url, '--json'], { cwd, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const summary = JSON.parse(resumed.stdout) as { status: string; episodes: number; passRate: number; missingEpisodes: number };
    assert.deepEqual([summary.status, summary.episodes, summary.missingEpisodes, summary.passRate], ['finished', 5000, 0, 1]);
    const store = openResultsStore(server.url);
    try {
      // One row per (task, trial): none lost, none stored twice across the kill.
      const keys = new Set(store.listEpisodes(runId as string).map((episode) => `${episode.taskId}/${episode.trial}`));
      assert.equal(keys.size, 5000);
      assert.equal(store.countEpisodes(runId as string).scored, 5000);
    } finally {
      store.close();
    }
  });
});
