/**
 * Bench child: `toolforge run funcgen --model openai-compatible/stand-in --concurrency <n>` as a user runs it (the
 * CLI's main, in this process), against a local OpenAI-compatible stand-in (127.0.0.1, its own process:
 * stand-in-server.ts) that answers every chat completion after `latencyMs` (one request per episode). The tasks
 * stream from the generator into the store and are read back a page at a time, as in any CLI run.
 * The clock runs from the first episode's start to the last episode's end, read from the stored episodes (task
 * generation, the oracle check of every task and the summary are outside it, as they are a small share of a real
 * run whose episodes take minutes).
 * Prints one JSON line: episodes, seconds, requests seen, peak requests in flight. Plain JavaScript, so with the built
 * package (dist/cli/main.js, what an installed ToolForge runs) no TypeScript loader is in the process.
 * Usage: stand-in-endpoint.mjs <episodes> <concurrency> <latency ms> <db path> <dist/cli/main.js>
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [episodeCount, concurrency, latencyMs, dbPath, cliMain] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]), process.argv[5], process.argv[6]];
// The server is TypeScript: it runs through tsx in its own process (its cost is not the harness's).
const server = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./stand-in-server.ts', import.meta.url)), String(latencyMs)], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
let serverOutput = '';
server.stdout.setEncoding('utf8').on('data', (chunk) => { serverOutput += chunk; });
while (!serverOutput.includes('\n')) await once(server.stdout, 'data');
const port = Number(serverOutput.split('\n')[0]);
const { main } = await import(pathToFileURL(cliMain).href);
let stderr = '';
const io = { stdout: () => {}, stderr: (text) => { stderr += text; }, isStderrTty: false, env: { PATH: process.env.PATH, HOME: process.env.HOME }, cwd: process.cwd() };
const exitCode = await main(['run', 'funcgen', '--count', String(episodeCount), '--seed', '3', '--set', 'core=5', '--set', 'connected=2', '--set', 'disconnected=2',
  '--model', 'openai-compatible/stand-in', '--base-url', `http://127.0.0.1:${port}/v1`, '--concurrency', String(concurrency), '--db', dbPath, '--json'], io);
server.stdin.end();
await once(server, 'close');
if (exitCode !== 0) throw new Error(`toolforge run exited with ${exitCode}: ${stderr.slice(0, 400)}`);
const Database = createRequire(import.meta.url)('better-sqlite3');
const database = new Database(dbPath, { readonly: true });
const window = database.prepare(`SELECT min(started_at) AS first, max(ended_at) AS last, count(*) AS episodes,
  sum(status = 'infrastructure-error') AS infrastructureErrors FROM episodes`).get();
database.close();
const seconds = (Date.parse(window.last) - Date.parse(window.first)) / 1000;
const { requests, peakInFlight } = JSON.parse(serverOutput.split('\n')[1]);
console.log(JSON.stringify({ episodes: window.episodes, infrastructureErrors: window.infrastructureErrors, seconds, requests, peakInFlight }));
process.exit(0);
