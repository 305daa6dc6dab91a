/**
 * Bench child: `concurrency` episodes in flight against a local OpenAI-compatible stand-in (127.0.0.1) that
 * answers every chat completion after `latencyMs` with a plain text reply (one request per episode).
 * Prints one JSON line: episodes, seconds, requests seen.
 * Usage: stand-in-endpoint.ts <episodes> <concurrency> <latency ms> <db path>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

const [episodeCount, concurrency, latencyMs, dbPath] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]), process.argv[5]];
let requests = 0;
let inFlight = 0;
let peakInFlight = 0;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    requests += 1;
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    setTimeout(() => {
      inFlight -= 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({
        id: 'chatcmpl-stand-in', object: 'chat.completion', created: 0, model: 'stand-in',
        choices: [{ index: 0, message: { role: 'assistant', content: 'I cannot compute that.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }));
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '5', connected: '2', disconnected: '2' });
const tasks = await generateTasks(suite, { seed: 3, count: episodeCount, params, validate: false });
const start = performance.now();
const summary = await runEvaluation({
  suite, tasks, modelRef: 'openai-compatible/stand-in', baseUrl: `http://127.0.0.1:${port}/v1`, env: {}, seed: 3, params, concurrency, dbPath,
});
const seconds = (performance.now() - start) / 1000;
server.close();
console.log(JSON.stringify({ episodes: summary.episodes, infrastructureErrors: summary.infrastructureErrors, seconds, requests, peakInFlight }));
process.exit(0);
