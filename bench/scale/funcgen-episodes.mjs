// Bench child: runs builtin/planner on freshly generated funcgen tasks in this process and prints one JSON line
// (episodes, seconds, peak RSS). Run as a separate process so its peak RSS is the run's own. Plain JavaScript, so
// with the built package (dist/index.js, what an installed ToolForge runs) no TypeScript loader is in the process;
// `entry` may also be src/index.ts when the child is started with tsx.
// Usage: funcgen-episodes.mjs <tasks> <trials> <db path> <entry>
import { pathToFileURL } from 'node:url';

const [taskCount, trials, dbPath, entry] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4], process.argv[5]];
const { generateTasks, getSuite, limitHeapGrowth, resolveKnobs, runEvaluation } = await import(pathToFileURL(entry).href);
// As `toolforge run` does at start (src/runner/heap-growth.ts), so this library run is measured as the CLI runs.
limitHeapGrowth();
const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '10', connected: '5', disconnected: '5' });
const tasks = await generateTasks(suite, { seed: 1, count: taskCount, params, validate: false });
const start = performance.now();
const summary = await runEvaluation({ suite, tasks, trials, modelRef: 'builtin/planner', seed: 1, params, concurrency: 4, dbPath });
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ episodes: summary.episodes, passRate: summary.passRate, seconds, peakRssKb: process.resourceUsage().maxRSS }));
