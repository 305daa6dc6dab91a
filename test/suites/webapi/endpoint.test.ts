/**
 * Chat and completions endpoints over the real OpenAI wire protocol, against a server on 127.0.0.1:
 * chat models get the prompt as a chat message and their fenced code is run; base models get
 * prompt + starter through /v1/completions (stop at the closing fence, 250 tokens) and their
 * continuation is put after the starter.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createModelSource } from '../../../src/models/registry.ts';
import { createLazySandbox } from '../../../src/runner/lazy-sandbox.ts';
import { runEpisode } from '../../../src/runner/run-episode.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { webapiSuite } from '../../../src/suites/webapi/index.ts';
import { fixturePath } from '../../require-data.ts';


/** One sandbox pool for every episode here, as a run has. */
const programs = createLazySandbox(2);
const requests: { path: string; body: Record<string, unknown> }[] = [];
let server: Server;
let baseUrl: string;

/** The first task of the hand-written fixture task file: GET /notes?limit=20&tag=groceries. */
const fixtureData = fixturePath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json');
const continuation = "get('https://notes.example.test/v1/notes', { headers: { Authorization: 'Bearer <token>' }, params: { tag: 'groceries', limit: 20 } });\n";

before(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => { text += chunk; });
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      requests.push({ path: request.url ?? '', body });
      const usage = { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 };
      response.setHeader('content-type', 'application/json');
      if (request.url?.endsWith('/completions') && !request.url.endsWith('/chat/completions')) {
        response.end(JSON.stringify({ id: 'c1', object: 'text_completion', created: 0, model: 'base', choices: [{ index: 0, text: continuation, finish_reason: 'stop', logprobs: null }], usage }));
      } else {
        const content = `Sure:\n\`\`\`javascript\nconst axios = require('axios');\n\naxios.${continuation}\`\`\`\n`;
        response.end(JSON.stringify({ id: 'c2', object: 'chat.completion', created: 0, model: 'chat', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await programs.dispose();
});

describe('model endpoints', () => {
  test('completions: prompt + starter in, continuation after the starter out', async () => {
    const [task] = await webapiSuite.generate({ seed: 0, count: 1, params: resolveKnobs('webapi', webapiSuite.knobs, { data: fixtureData, endpoint: 'completions' }) });
    const model = createModelSource('openai-compatible/base', { baseUrl, env: {} });
    const result = await runEpisode({ suite: webapiSuite, task, trial: 0, mode: 'code', model, sandbox: () => programs.get() });
    assert.equal(result.score.passed, true, result.score.reason);
    const sent = requests.at(-1);
    assert.equal(sent?.path, '/v1/completions');
    assert.equal(sent?.body.prompt, task.prompt[0].content);
    assert.ok(String(sent?.body.prompt).endsWith("const axios = require('axios');\n\naxios."));
    assert.deepEqual(sent?.body.stop, ['\n```\n']);
    assert.equal(sent?.body.max_tokens, 250);
    const answer = result.messages.at(-1);
    assert.equal(answer?.role === 'assistant' ? answer.content : '', `${task.starter}${continuation}`);
  });

  test('chat: the fenced code of the answer is run', async () => {
    const [task] = await webapiSuite.generate({ seed: 0, count: 1, params: resolveKnobs('webapi', webapiSuite.knobs, { data: fixtureData }) });
    const model = createModelSource('openai-compatible/chat', { baseUrl, env: {} });
    const result = await runEpisode({ suite: webapiSuite, task, trial: 0, mode: 'code', model, sandbox: () => programs.get() });
    assert.equal(result.score.passed, true, result.score.reason);
    const sent = requests.at(-1);
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.match(JSON.stringify(sent?.body.messages), /without any explanations/);
  });
});
