/**
 * Tiny calls to the real APIs, run only when the key variable is set (skipped otherwise, so the default
 * `npm test` stays offline). Override the model with TOOLFORGE_LIVE_<PROVIDER>_MODEL; openai-compatible
 * runs when TOOLFORGE_LIVE_BASE_URL points at a server (its model from TOOLFORGE_LIVE_OPENAI_COMPATIBLE_MODEL).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createModelSource } from '../../src/models/registry.ts';
import { episodeTask, generateRequest, weatherTool } from '../conformance/model-provider.cases.ts';

const live = [
  { provider: 'openai', enabled: Boolean(process.env.OPENAI_API_KEY), model: process.env.TOOLFORGE_LIVE_OPENAI_MODEL ?? 'gpt-4.1-mini' },
  { provider: 'anthropic', enabled: Boolean(process.env.ANTHROPIC_API_KEY), model: process.env.TOOLFORGE_LIVE_ANTHROPIC_MODEL ?? 'claude-haiku-4-5' },
  { provider: 'google', enabled: Boolean(process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY), model: process.env.TOOLFORGE_LIVE_GOOGLE_MODEL ?? 'gemini-2.5-flash' },
  { provider: 'openai-compatible', enabled: Boolean(process.env.TOOLFORGE_LIVE_BASE_URL), model: process.env.TOOLFORGE_LIVE_OPENAI_COMPATIBLE_MODEL ?? 'default' },
];

describe('live providers', () => {
  for (const { provider, enabled, model } of live) {
    test(`${provider}/${model} calls a tool and reads its result`, { skip: enabled ? false : `no key for ${provider}` }, async () => {
      const languageModel = createModelSource(`${provider}/${model}`, { baseUrl: provider === 'openai-compatible' ? process.env.TOOLFORGE_LIVE_BASE_URL : undefined })
        .forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
      const question = { role: 'user' as const, content: 'What is the weather in Paris? Use the tool.' };
      const first = await languageModel.generate(generateRequest([question], { tools: [weatherTool], toolChoice: 'required', settings: { maxOutputTokens: 300 } }));
      assert.equal(first.finishReason, 'tool-calls');
      const [call] = first.message.toolCalls;
      assert.equal(call.name, 'get_weather');
      assert.match(String(call.arguments?.city), /paris/i);
      const second = await languageModel.generate(generateRequest([
        question, first.message, { role: 'tool', toolCallId: call.id, toolName: call.name, result: { ok: true, output: { temperature: 18, unit: 'c' } } },
      ], { tools: [weatherTool], toolChoice: 'none', settings: { maxOutputTokens: 300 } }));
      assert.match(second.message.content, /18/);
      assert.ok(second.usage.inputTokens > 0);
    });
  }
});
