/**
 * A worker killed on this machine frees its episodes at once: the next worker (or a resume, a delete) sees that its
 * process has ended and takes them, instead of waiting for leases that may last minutes (--lease).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { ConversationServer } from '../fakes/conversation-server.ts';
import { startConversationServer } from '../fakes/conversation-server.ts';
import { binPath, runCli, temporaryDirectory } from './run-cli.ts';

describe('a team run on one machine, one worker killed', () => {
  let server: ConversationServer;
  before(async () => { server = await startConversationServer({ toolTurns: 1, retryAfterMs: 1 }); });
  after(async () => { await server.close(); });

  test('its leased episodes are taken by the next worker at once, not when its 10-minute leases lapse', { timeout: 120_000 }, async () => {
    const cwd = temporaryDirectory();
    const env = { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: 'test' };
    const database = join(cwd, 'team.db');
    const queued = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '6',
      '--db', database, '--workers-only', '--json'], { cwd, env });
    assert.equal(queued.code, 0, queued.stderr);
    const { runId } = JSON.parse(queued.stdout) as { runId: string };

    // The first worker's requests hang, so it dies holding leases.
    server.setBehaviour('hang');
    const first = spawn(process.execPath, [binPath, 'worker', '--run', runId, '--db', database, '--lease', '600000', '--concurrency', '3'], { cwd, env, stdio: 'ignore' });
    const exited = new Promise((resolve) => first.on('close', resolve));
    const leased = (): number => {
      const store = openResultsStore(database, { readOnly: true });
      try {
        return store.queueCounts(runId).leased;
      } finally {
        store.close();
      }
    };
    while (leased() < 3) await sleep(50);
    first.kill('SIGKILL');
    await exited;
    assert.equal(leased(), 3, 'a dead worker\'s leases are live until someone looks');

    server.setBehaviour('answer');
    const second = await runCli(['worker', '--run', runId, '--db', database, '--lease', '600000', '--json'], { cwd, env });
    assert.equal(second.code, 0, second.stderr);
    const summary = JSON.parse(second.stdout) as { episodesRun: number; episodes: number; infrastructureErrors: number };
    assert.deepEqual([summary.episodesRun, summary.episodes, summary.infrastructureErrors], [6, 6, 0]);
    assert.equal(leased(), 0);
  });
});
