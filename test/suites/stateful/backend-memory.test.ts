/**
 * Every stateful episode serves its backend on a port of its own (the session REST service, the voice lab's MCP
 * endpoint). What reaches them must let go of each when the episode ends: the global fetch keeps a connection pool
 * per origin it has reached, ~35 KB for the life of the process, so a 100,000-episode run would grow by gigabytes.
 * These count retained heap after full collections, not time: a few hundred backends must not grow it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createToolCall } from '../../../src/core/tool.ts';
import { recordRequest } from '../../../src/sandbox/request-record.ts';
import { createSessionBackend, sessionServiceBaseUrl } from '../../../src/suites/stateful/session/session-backend.ts';
import { createVoiceCallsEnvironment } from '../../../src/suites/stateful/voice/voice-calls.ts';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Live objects on the heap: compiled code is left out (V8 keeps optimising the loop's functions for a while). */
function liveObjectBytes(): number {
  collectGarbage();
  return v8.getHeapSpaceStatistics().filter((space) => space.space_name !== 'code_space').reduce((sum, space) => sum + space.space_used_size, 0);
}

/** Retained heap after `rounds` more uses than a warm-up of `warmUp`, in MB. */
async function retainedGrowthMb(warmUp: number, rounds: number, use: () => Promise<void>): Promise<number> {
  for (let index = 0; index < warmUp; index += 1) await use();
  const before = liveObjectBytes();
  for (let index = 0; index < rounds; index += 1) await use();
  return (liveObjectBytes() - before) / 1_048_576;
}

test('a session backend per episode, each reached through the HTTP bridge, is released when the episode ends', async () => {
  const request = recordRequest({ client: 'fetch', method: 'get', url: `${sessionServiceBaseUrl}/api/sessions/web/settings`, headers: {}, params: {}, body: { kind: 'none' } });
  const growth = await retainedGrowthMb(50, 300, async () => {
    const backend = await createSessionBackend({ sessions: [{ source: 'web', type: 'settings', data: { theme: 'dark' } }] });
    try {
      assert.ok(backend.http);
      const response = await backend.http(request);
      assert.deepEqual([response.status, Array.isArray(response.data) && response.data.length], [200, 1]);
    } finally {
      await backend.dispose();
    }
  });
  // Held per origin by the global fetch: ~10 MB for 300 backends.
  assert.ok(growth < 3, `the heap kept ${growth.toFixed(1)} MB after 300 backends`);
});

test('a voice lab per episode, called over streamable HTTP with the official MCP client, is released when the episode ends', async () => {
  const growth = await retainedGrowthMb(80, 200, async () => {
    const environment = await createVoiceCallsEnvironment();
    try {
      const result = await environment.callTool(createToolCall('call-1', 'search_voice_library', '{"search_gender": "feminine"}'), { signal: new AbortController().signal });
      assert.equal(result.ok, true, JSON.stringify(result));
    } finally {
      await environment.dispose?.();
    }
  });
  assert.ok(growth < 3, `the heap kept ${growth.toFixed(1)} MB after 200 labs`);
});
