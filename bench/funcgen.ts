import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTasks } from '../src/runner/generate-tasks.ts';
import { runEvaluation } from '../src/runner/run-evaluation.ts';
import { resolveKnobs } from '../src/suites/knob.ts';
import { getSuite } from '../src/suites/registry.ts';
import type { BenchFigure } from './bench-figure.ts';
import { itemsPerSecond } from './bench-figure.ts';

/** funcgen: task generation speed and harness throughput with builtin/planner (no model latency). */
export async function bench(): Promise<BenchFigure[]> {
  const suite = getSuite('funcgen');
  const params = resolveKnobs(suite.id, suite.knobs, { core: '10', connected: '5', disconnected: '5' });
  let seed = 0;
  const generated = await itemsPerSecond('funcgen tasks generated (core=10, connected=5, disconnected=5)', 'tasks/s', async () => {
    seed += 1;
    return (await suite.generate({ seed, count: 50, params })).length;
  });
  const validated = await itemsPerSecond('funcgen tasks generated and validated by builtin/oracle', 'tasks/s', async () => {
    seed += 1;
    return (await generateTasks(suite, { seed, count: 50, params })).length;
  });
  const tasks = await generateTasks(suite, { seed: 1, count: 100, params, validate: false });
  const directory = mkdtempSync(join(tmpdir(), 'toolforge-bench-'));
  try {
    let runs = 0;
    const episodes = await itemsPerSecond('funcgen episodes run, scored and stored (builtin/planner, concurrency 4)', 'episodes/s', async () => {
      runs += 1;
      const summary = await runEvaluation({
        suite, tasks, modelRef: 'builtin/planner', seed: 1, params, concurrency: 4, dbPath: join(directory, `run-${runs}.db`),
      });
      return summary.episodes;
    });
    return [generated, validated, episodes];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
