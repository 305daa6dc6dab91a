import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { binPath, keylessEnvironment, runCli, spawnCli, temporaryDirectory } from './run-cli.ts';

/**
 * A real OpenAI-wire server on 127.0.0.1: it answers every chat completion with a plain final answer
 * (no tool calls); or holds the request open so a run can be interrupted mid-call; or rejects the key.
 */
type ServerBehaviour = 'answer' | 'hang' | 'reject';

function startChatServer(): Promise<{ baseUrl: string; requests: { path: string; body: { model?: string; tools?: unknown[]; temperature?: number } }[]; setBehaviour(value: ServerBehaviour): void; close(): Promise<void> }> {
  let behaviour: ServerBehaviour = 'answer';
  const requests: { path: string; body: { model?: string; tools?: unknown[]; temperature?: number } }[] = [];
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    let text = '';
    incoming.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
    incoming.on('end', () => {
      requests.push({ path: incoming.url ?? '', body: JSON.parse(text || '{}') });
      if (behaviour === 'hang') return;
      if (behaviour === 'reject') {
        outgoing.writeHead(401, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
        return;
      }
      outgoing.writeHead(200, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify({
        id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'gpt-4.1',
        choices: [{ index: 0, message: { role: 'assistant', content: 'The answer is 42.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 },
      }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    resolve({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      requests,
      setBehaviour: (value) => { behaviour = value; },
      close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()); }),
    });
  }));
}

describe('a network model through the CLI (OpenAI wire on 127.0.0.1)', () => {
  let server: Awaited<ReturnType<typeof startChatServer>>;
  before(async () => { server = await startChatServer(); });
  after(async () => { await server.close(); });

  test('openai/<model> with --base-url sends real requests, and a wrong final answer is a scored failure', async () => {
    const directory = temporaryDirectory();
    // Spawned: the runner reads API keys from the process environment.
    const result = await spawnCli(['run', 'funcgen', '--model', 'openai/gpt-4.1', '--base-url', server.baseUrl, '--count', '2', '--temperature', '0', '--json'],
      { cwd: directory, env: { ...keylessEnvironment(), OPENAI_API_KEY: 'test-key' } });
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.model, 'openai/gpt-4.1');
    assert.equal(summary.episodes, 2);
    assert.equal(summary.infrastructureErrors, 0);
    assert.equal(summary.passRate, 0);
    const requests = server.requests.filter((request) => request.path === '/v1/chat/completions');
    assert.ok(requests.length >= 2);
    assert.equal(requests[0].body.model, 'gpt-4.1');
    assert.equal(requests[0].body.temperature, 0, '--temperature reaches the request');
    assert.ok((requests[0].body.tools ?? []).length > 0, 'calls mode offers native tools');
  });

  test('--phrasing-model sends the generator\'s phrasing requests to the model and uses its text', async () => {
    const before = server.requests.length;
    const result = await runCli(['generate', 'nestful', '--count', '2', '--set', 'phrasing=model', '--phrasing-model', 'openai-compatible/writer', '--base-url', server.baseUrl],
      { cwd: temporaryDirectory() });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(server.requests.length > before, 'the phrasing model was called');
    assert.equal(server.requests[before].body.model, 'writer');
    // "The answer is 42." keeps none of the question's numbers: the template question is kept instead.
    assert.doesNotMatch(result.stdout, /The answer is 42\./);
    const tasks = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { stats: { phrasing?: string } });
    assert.deepEqual(tasks.map((task) => task.stats.phrasing), ['template-fallback', 'template-fallback']);
  });

  test('--cache answers a repeated temperature-0 run from the response cache: no request, same scores; sampled requests are not cached', async () => {
    const directory = temporaryDirectory();
    const env = { ...keylessEnvironment(), OPENAI_API_KEY: 'test-key' };
    const args = ['run', 'funcgen', '--model', 'openai/gpt-4.1', '--base-url', server.baseUrl, '--count', '2', '--cache', '--json', '--db', 'r.db'];
    const requestsBefore = server.requests.length;
    const first = await runCli([...args, '--temperature', '0'], { cwd: directory, env });
    assert.equal(first.code, 0, first.stderr);
    const sent = server.requests.length - requestsBefore;
    assert.ok(sent >= 2);
    assert.match(first.stderr, new RegExp(`0 requests answered from the cache, ${sent} sent and stored`));
    const second = await runCli([...args, '--temperature', '0'], { cwd: directory, env });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(server.requests.length - requestsBefore, sent, 'the second run sent nothing');
    assert.match(second.stderr, new RegExp(`${sent} requests answered from the cache, 0 sent`));
    const [firstSummary, secondSummary] = [JSON.parse(first.stdout), JSON.parse(second.stdout)];
    assert.deepEqual({ ...secondSummary, runId: '' }, { ...firstSummary, runId: '' });
    const sampled = await runCli([...args, '--temperature', '0.7'], { cwd: directory, env });
    assert.equal(sampled.code, 0, sampled.stderr);
    assert.equal(server.requests.length - requestsBefore, 2 * sent, 'temperature 0.7 is sent again');
    assert.match(sampled.stderr, /sent uncached \(temperature is not 0/);
  });

  test('an openai-compatible --phrasing-model without its endpoint is refused naming --phrasing-base-url, before a run is recorded', async () => {
    const directory = temporaryDirectory();
    for (const command of [['run', 'nestful', '--model', 'builtin/oracle', '--db', 'r.db'], ['generate', 'nestful']]) {
      const result = await runCli([...command, '--count', '1', '--set', 'phrasing=model', '--phrasing-model', 'openai-compatible/writer'], { cwd: directory });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /openai-compatible\/writer needs --phrasing-base-url: .*\n {2}fix: .*--phrasing-base-url http:\/\//);
    }
    const runs = await runCli(['runs', '--db', 'r.db'], { cwd: directory });
    assert.match(runs.stdout + runs.stderr, /no runs recorded yet/);
  });

  test('--phrasing-base-url is the phrasing model\'s endpoint; the run summary counts phrasing fallbacks', async () => {
    const before = server.requests.length;
    const result = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--set', 'phrasing=model',
      '--phrasing-model', 'openai-compatible/writer', '--phrasing-base-url', server.baseUrl, '--json'], { cwd: temporaryDirectory() });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length - before, 2, 'one phrasing request per task');
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.metrics.phrasingFallbacks, 2);
    assert.equal(summary.passRate, 1);
  });

  test('a rejected key is stored as infrastructure errors, not scored, and the cause is shown', async () => {
    server.setBehaviour('reject');
    try {
      const result = await spawnCli(['run', 'funcgen', '--model', 'openai/gpt-4.1', '--base-url', server.baseUrl, '--count', '2', '--json'],
        { cwd: temporaryDirectory(), env: { ...keylessEnvironment(), OPENAI_API_KEY: 'wrong-key' } });
      // Nothing scored is not a result: a distinct exit code, and the reason on stderr.
      assert.equal(result.code, 3, result.stderr);
      assert.match(result.stderr, /no episode scored: 2 infrastructure errors/);
      const summary = JSON.parse(result.stdout);
      assert.equal(summary.episodes, 0, result.stderr);
      assert.equal(summary.infrastructureErrors, 2, result.stderr);
      assert.match(result.stderr, /infrastructure errors \(not scored, rerun by --resume\):\n {2}2 x openai returned HTTP 401/, result.stderr);
    } finally {
      server.setBehaviour('answer');
    }
  });

  test('Ctrl-C during a network run keeps what finished, exits 130, and --resume finishes the run', async () => {
    const directory = temporaryDirectory();
    server.setBehaviour('hang');
    const before = server.requests.length;
    const child = spawn(process.execPath, [binPath, 'run', 'funcgen', '--model', 'openai/gpt-4.1', '--base-url', server.baseUrl, '--count', '2', '--concurrency', '1'],
      { cwd: directory, env: { ...keylessEnvironment(), OPENAI_API_KEY: 'test-key' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    // Interrupt once the first model call is in flight (polling the server, not a timer on the run).
    while (server.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 130, stderr);
    assert.match(stdout, /interrupted: finished episodes are stored/);
    assert.match(stdout, /2 episodes not scored; finish them with: toolforge run --resume (\S+)/);
    const runId = /--resume (\S+)/.exec(stdout)?.[1] ?? '';
    const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: directory })).stdout) as { id: string; status: string }[];
    assert.deepEqual(runs.map((run) => [run.id, run.status]), [[runId, 'cancelled']]);
    server.setBehaviour('answer');
    const resumed = await spawnCli(['run', '--resume', runId, '--json'], { cwd: directory, env: { ...keylessEnvironment(), OPENAI_API_KEY: 'test-key' } });
    assert.equal(resumed.code, 0, resumed.stderr);
    const summary = JSON.parse(resumed.stdout);
    assert.equal(summary.runId, runId);
    assert.equal(summary.episodes, 2);
    const after = JSON.parse((await runCli(['runs', '--json'], { cwd: directory })).stdout) as { status: string }[];
    assert.equal(after[0].status, 'finished');
  });
});
