/**
 * Bench child: runs builtin/planner on freshly generated funcgen tasks in this process and prints one JSON line
 * (episodes, seconds, peak RSS). Run as a separate process so its peak RSS is the run's own.
 * Usage: funcgen-episodes.ts <tasks> <trials> <db path>
 */
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

const [taskCount, trials, dbPath] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '10', connected: '5', disconnected: '5' });
const tasks = await generateTasks(suite, { seed: 1, count: taskCount, params, validate: false });
const start = performance.now();
const summary = await runEvaluation({ suite, tasks, trials, modelRef: 'builtin/planner', seed: 1, params, concurrency: 4, dbPath });
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ episodes: summary.episodes, passRate: summary.passRate, seconds, peakRssKb: process.resourceUsage().maxRSS }));
