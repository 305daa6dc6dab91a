/**
 * toolbench: the oracle over all 765 StableToolBench solvable queries through the real runner (template
 * simulator, in-memory cache, calls mode), printing how many it finished and passed, and episodes per
 * second; a one-query run through the template simulator alone gives the virtual API's call rate.
 * Skipped (no figures) without the stabletoolbench data.
 */
import { hasDataset } from '../src/core/data-location.ts';
import { generateTasks } from '../src/runner/generate-tasks.ts';
import { runEvaluation } from '../src/runner/run-evaluation.ts';
import { openResultsStore } from '../src/store/results-store.ts';
import { resolveKnobs } from '../src/suites/knob.ts';
import { toolbenchSuite } from '../src/suites/toolbench/toolbench-suite.ts';
import { toolbenchExpected } from '../src/suites/toolbench/toolbench-task.ts';
import { createMemoryResponseCache } from '../src/suites/toolbench/response-cache.ts';
import { createVirtualApi } from '../src/suites/toolbench/virtual-api.ts';
import type { BenchFigure } from './bench-figure.ts';
import { itemsPerSecond } from './bench-figure.ts';

export async function bench(): Promise<BenchFigure[]> {
  if (!hasDataset('stabletoolbench', 'solvable_queries', 'test_instruction')) {
    console.log('  skipped: needs the stabletoolbench data set: toolforge data fetch stabletoolbench, or set $TOOLFORGE_DATA');
    return [];
  }
  const params = resolveKnobs('toolbench', toolbenchSuite.knobs, {});
  const tasks = await generateTasks(toolbenchSuite, { seed: 1, count: undefined, params, validate: false });
  const start = performance.now();
  const summary = await runEvaluation({ suite: toolbenchSuite, tasks, modelRef: 'builtin/oracle', seed: 1, params, store: openResultsStore(':memory:'), concurrency: 4 });
  const seconds = (performance.now() - start) / 1000;
  const apis = tasks.flatMap((task) => toolbenchExpected(task).apis);
  let index = 0;
  const simulatorRate = await itemsPerSecond('toolbench template simulator calls', 'calls/s', async () => {
    const virtualApi = createVirtualApi({ cache: createMemoryResponseCache(), seed: 1 });
    for (let count = 0; count < 200; count += 1) await virtualApi.call(apis[(index += 1) % apis.length], '{"q": "x"}');
    return 200;
  });
  return [
    { name: 'toolbench oracle queries run (all groups)', value: summary.episodes, unit: 'queries' },
    { name: 'toolbench oracle queries passed (structural)', value: summary.passed, unit: 'queries' },
    { name: 'toolbench oracle finished with an answer', value: summary.metrics.finishedWithAnswer * 100, unit: '%' },
    { name: 'toolbench oracle episodes through the runner', value: summary.episodes / seconds, unit: 'episodes/s' },
    simulatorRate,
  ];
}
