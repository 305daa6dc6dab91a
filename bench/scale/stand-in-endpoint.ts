/**
 * Bench child: `concurrency` episodes in flight against a local OpenAI-compatible stand-in (127.0.0.1, its own
 * process: stand-in-server.ts) that answers every chat completion after `latencyMs` (one request per episode).
 * The clock runs from the first episode to the last (the run's own episodes: createRun, planning and the summary
 * are outside it, as they are in a real run whose episodes take minutes), taken from the run's progress events.
 * Prints one JSON line: episodes, seconds, requests seen, peak requests in flight.
 * Usage: stand-in-endpoint.ts <episodes> <concurrency> <latency ms> <db path>
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

const [episodeCount, concurrency, latencyMs, dbPath] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]), process.argv[5]];
const server = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./stand-in-server.ts', import.meta.url)), String(latencyMs)], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
let serverOutput = '';
server.stdout.setEncoding('utf8').on('data', (chunk: string) => { serverOutput += chunk; });
while (!serverOutput.includes('\n')) await once(server.stdout, 'data');
const port = Number(serverOutput.split('\n')[0]);
const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '5', connected: '2', disconnected: '2' });
const tasks = await generateTasks(suite, { seed: 3, count: episodeCount, params, validate: false });
let firstStart: number | undefined;
let lastEnd = 0;
const summary = await runEvaluation({
  suite, tasks, modelRef: 'openai-compatible/stand-in', baseUrl: `http://127.0.0.1:${port}/v1`, env: {}, seed: 3, params, concurrency, dbPath,
  onProgress: (event) => {
    if (event.type === 'run-start') firstStart = performance.now();
    if (event.type === 'episode-end') lastEnd = performance.now();
  },
});
const seconds = (lastEnd - (firstStart ?? lastEnd)) / 1000;
server.stdin.end();
await once(server, 'close');
const { requests, peakInFlight } = JSON.parse(serverOutput.split('\n')[1]) as { requests: number; peakInFlight: number };
console.log(JSON.stringify({ episodes: summary.episodes, infrastructureErrors: summary.infrastructureErrors, seconds, requests, peakInFlight }));
process.exit(0);
