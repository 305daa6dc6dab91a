/**
 * Bench child: `concurrency` episodes in flight against a local OpenAI-compatible stand-in (127.0.0.1, its own
 * process: stand-in-server.ts) that answers every chat completion after `latencyMs` (one request per episode).
 * The clock runs from the first episode to the last (the run's own episodes: createRun, planning and the summary
 * are outside it, as they are in a real run whose episodes take minutes), taken from the run's progress events.
 * Prints one JSON line: episodes, seconds, requests seen, peak requests in flight. Plain JavaScript, so with the built
 * package (dist/index.js, what an installed ToolForge runs) no TypeScript loader is in the process; `entry` may also
 * be src/index.ts when the child is started with tsx.
 * Usage: stand-in-endpoint.mjs <episodes> <concurrency> <latency ms> <db path> <entry>
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [episodeCount, concurrency, latencyMs, dbPath, entry] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]), process.argv[5], process.argv[6]];
const { generateTasks, getSuite, limitHeapGrowth, resolveKnobs, runEvaluation } = await import(pathToFileURL(entry).href);
// As `toolforge run` does at start (src/runner/heap-growth.ts), so this library run is measured as the CLI runs.
limitHeapGrowth();
// The server is TypeScript: it runs through tsx in its own process (its cost is not the harness's).
const server = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./stand-in-server.ts', import.meta.url)), String(latencyMs)], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
let serverOutput = '';
server.stdout.setEncoding('utf8').on('data', (chunk) => { serverOutput += chunk; });
while (!serverOutput.includes('\n')) await once(server.stdout, 'data');
const port = Number(serverOutput.split('\n')[0]);
const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '5', connected: '2', disconnected: '2' });
const tasks = await generateTasks(suite, { seed: 3, count: episodeCount, params, validate: false });
let firstStart;
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
const { requests, peakInFlight } = JSON.parse(serverOutput.split('\n')[1]);
console.log(JSON.stringify({ episodes: summary.episodes, infrastructureErrors: summary.infrastructureErrors, seconds, requests, peakInFlight }));
process.exit(0);
