/**
 * Bench helper process: a local OpenAI-compatible stand-in endpoint (127.0.0.1) that answers every chat completion
 * after `latencyMs` with a plain text reply. It runs in its own process, as a real endpoint runs on its own machine,
 * so serving the requests is not charged to the harness under test. Prints its port on the first line, then, when
 * stdin closes, one JSON line (requests seen, peak in flight) and exits.
 * Usage: stand-in-server.ts <latency ms>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const latencyMs = Number(process.argv[2]);
const body = JSON.stringify({
  id: 'chatcmpl-stand-in', object: 'chat.completion', created: 0, model: 'stand-in',
  choices: [{ index: 0, message: { role: 'assistant', content: 'I cannot compute that.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});
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
      response.end(body);
    }, latencyMs);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  process.stdout.write(`${JSON.stringify({ requests, peakInFlight })}\n`);
  process.exit(0);
});
