/**
 * The broker between the runner's episodes and the MCP sessions that claim them: a client that stops waiting for an
 * episode gives its place up, so the next episode goes to a client that is still there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EpisodeBroker } from '../../src/mcp/episode-broker.ts';
import type { McpEpisode } from '../../src/mcp/mcp-episode.ts';

const episode = (name: string): McpEpisode => ({ name } as unknown as McpEpisode);

test('a claim withdrawn while it waits takes no episode; the next claim gets it; a claim already withdrawn gets none', async () => {
  const broker = new EpisodeBroker();
  const gone = new AbortController();
  const dead = broker.claim(gone.signal);
  const alive = broker.claim();
  gone.abort();
  assert.equal(await dead, undefined);
  const offered = broker.offer(episode('first'), new AbortController().signal);
  assert.equal(((await alive) as unknown as { name: string }).name, 'first');
  await offered;
  assert.equal(await broker.claim(AbortSignal.abort()), undefined);
  const later = broker.claim();
  broker.close();
  assert.equal(await later, undefined);
});
