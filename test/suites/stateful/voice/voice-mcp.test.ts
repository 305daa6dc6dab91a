/** The voice lab MCP server with the official client (in-memory and streamable HTTP), and as sandbox bindings. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../../../../src/core/json.ts';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { callVoiceTool, connectVoiceLab, createVoiceBackend } from '../../../../src/suites/stateful/voice/voice-backend.ts';
import { VoiceLab } from '../../../../src/suites/stateful/voice/voice-lab.ts';
import { serveVoiceLabOverHttp, voiceToolNames } from '../../../../src/suites/stateful/voice/voice-mcp-server.ts';

describe('voice lab over MCP', () => {
  test('in-memory round trip: six tools listed with schemas; a call chain changes state and records every transition', async () => {
    const connection = await connectVoiceLab();
    try {
      const { tools } = await connection.client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [...voiceToolNames].sort());
      const tts = tools.find((tool) => tool.name === 'text_to_speech');
      assert.deepEqual((tts?.inputSchema.required as string[]).sort(), ['text', 'voice_name']);
      const voices = await callVoiceTool(connection.client, 'search_voice_library', { search_category: 'young' }) as { voice_name: string }[];
      assert.deepEqual(voices.map((voice) => voice.voice_name), ['Sofia', 'Arthur']);
      const speech = await callVoiceTool(connection.client, 'text_to_speech', { text: 'one two three four five', voice_name: 'Sofia' }) as JsonObject;
      assert.equal(speech.duration, 2);
      const revoiced = await callVoiceTool(connection.client, 'speech_to_speech', { speech, voice_name: 'Arthur' }) as JsonObject;
      const isolated = await callVoiceTool(connection.client, 'isolate_audio', { speech: revoiced.speech_id as string }) as JsonObject;
      assert.deepEqual(isolated.history, ['text_to_speech(Sofia)', 'speech_to_speech(Arthur)', 'isolate_audio']);
      assert.equal(isolated.duration, 1);
      assert.deepEqual(await callVoiceTool(connection.client, 'speech_to_text', { speech: isolated, diarize: true }), { text: 'one two three four five', diarize: true });
      await callVoiceTool(connection.client, 'make_outbound_call', { speech: isolated, voice_name: 'Arthur' });
      assert.equal(connection.lab.calls.length, 1);
      assert.equal(connection.lab.calls[0].speech.voice_name, 'Arthur');
      assert.deepEqual(connection.lab.transitions.map((item) => item.tool), ['search_voice_library', 'text_to_speech', 'speech_to_speech', 'isolate_audio', 'speech_to_text', 'make_outbound_call']);
    } finally {
      await connection.close();
    }
  });

  test('refusals are tool errors: unknown voice, unknown speech, invalid arguments', async () => {
    const connection = await connectVoiceLab();
    try {
      await assert.rejects(callVoiceTool(connection.client, 'text_to_speech', { text: 'hi', voice_name: 'Nobody' }), /voice 'Nobody' not found/);
      await assert.rejects(callVoiceTool(connection.client, 'isolate_audio', { speech: 'speech_99' }), /speech 'speech_99' does not exist/);
      await assert.rejects(callVoiceTool(connection.client, 'text_to_speech', { text: 'hi', voice_name: 'Emma', stability: 3 }), /stability/);
      await assert.rejects(callVoiceTool(connection.client, 'search_voice_library', {}), /at least one/);
    } finally {
      await connection.close();
    }
  });

  test('streamable HTTP on 127.0.0.1: the official client lists and calls tools on a shared lab', async () => {
    const lab = new VoiceLab();
    const endpoint = await serveVoiceLabOverHttp(lab);
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
      assert.equal((await client.listTools()).tools.length, 6);
      const speech = await callVoiceTool(client, 'text_to_speech', { text: 'hello there', voice_name: 'Emma' });
      await callVoiceTool(client, 'make_outbound_call', { speech, voice_name: 'Emma' });
      assert.equal(lab.calls.length, 1);
    } finally {
      await client.close();
      await endpoint.close();
    }
  });
});

describe('voice lab over stdio', () => {
  test('the official client spawns the stdio server and calls a tool', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', fileURLToPath(new URL('../../../../src/suites/stateful/voice/voice-mcp-stdio.ts', import.meta.url))],
      stderr: 'ignore',
    }));
    try {
      assert.equal((await client.listTools()).tools.length, 6);
      const voices = await callVoiceTool(client, 'search_voice_library', { search_name: 'emma' }) as { voice_name: string }[];
      assert.deepEqual(voices.map((voice) => voice.voice_name), ['Emma']);
    } finally {
      await client.close();
    }
  });
});

describe('voice tools as sandbox bindings', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = createSandbox({ poolSize: 1 });
  });
  after(async () => {
    await sandbox.dispose();
  });

  test('model code awaits the tools; errors are catchable; RESULT and the call recorder come back without ids', async () => {
    const backend = await createVoiceBackend({});
    try {
      const result = await sandbox.run({
        code: `const voices = await search_voice_library({ search_gender: 'masculine', search_category: 'old' });
const speech = await text_to_speech({ text: 'call me back', voice_name: voices[0].voice_name });
let caught;
try { await speech_to_speech({ speech, voice_name: 'Zed' }); } catch (error) { caught = error.message; }
await make_outbound_call({ speech, voice_name: 'Emma' });
return { speech, caught };`,
        bindings: backend.bindings,
      });
      assert.equal(result.status, 'completed', JSON.stringify(result));
      const value = backend.resolveResult(result.status === 'completed' ? result.value : undefined) as { speech: Record<string, unknown>; caught: string };
      assert.equal(value.speech.voice_name, 'Michael');
      assert.equal('speech_id' in value.speech, false);
      assert.match(value.caught, /voice 'Zed' not found/);
      assert.deepEqual(backend.snapshotState(), {
        outbound_calls: [{ voice_name: 'Emma', speech: { text: 'call me back', voice_name: 'Michael', stability: 0.5, similarity_boost: 0.75, style: 0, duration: 1.2, history: ['text_to_speech(Michael)'] } }],
      });
    } finally {
      await backend.dispose();
    }
  });
});
