/**
 * stateful: adjacent transition coverage (paper Fig. 3) of 60 programs per scenario, coverage-guided vs the
 * w/o-COV ablation (mean over 5 seeds, ATC after 20/40/60 programs); program generation speed; and the time to
 * build oracles (sandbox runs against fresh backends) for 20 programs per scenario. Prints figures, asserts nothing.
 */
import { Rng } from '../src/core/rng.ts';
import { createSandbox } from '../src/sandbox/index.ts';
import { generateStatefulTasks } from '../src/suites/stateful/generate-stateful-tasks.ts';
import { OccurrenceBook } from '../src/suites/stateful/occurrence-book.ts';
import { coverageCurve, tableOne } from '../src/suites/stateful/program-statistics.ts';
import { scenarioIds } from '../src/suites/stateful/stateful-backend.ts';
import { statefulScenarios } from '../src/suites/stateful/stateful-scenarios.ts';
import type { BenchFigure } from './bench-figure.ts';

const checkpoints = [20, 40, 60];
const seeds = 5;

export async function bench(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  for (const scenario of scenarioIds) {
    const definition = statefulScenarios[scenario];
    let generated = 0;
    const start = performance.now();
    for (const guidance of ['coverage', 'uniform'] as const) {
      const means = checkpoints.map(() => 0);
      for (let seed = 0; seed < seeds; seed += 1) {
        let book = new OccurrenceBook();
        const programs = [];
        const rng = new Rng(seed);
        for (let index = 0; index < 60; index += 1) {
          const next = definition.generateProgram({ calls: 5, branch: 'sampled', guidance }, rng.child(index), book);
          book = next.book;
          programs.push(next.program);
          generated += 1;
        }
        coverageCurve(programs, definition.apis.length, checkpoints).forEach((point, index) => { means[index] += point.atc / seeds; });
      }
      const label = guidance === 'coverage' ? 'coverage-guided' : 'w/o-COV ablation';
      checkpoints.forEach((count, index) => figures.push({ name: `${scenario} ATC ${label} @${count} programs`, value: means[index], unit: '(mean of 5 seeds)' }));
    }
    figures.push({ name: `${scenario} programs generated (no oracle)`, value: generated / ((performance.now() - start) / 1000), unit: 'programs/s' });
  }
  const sandbox = createSandbox({ poolSize: 2 });
  try {
    for (const scenario of scenarioIds) {
      const start = performance.now();
      const run = await generateStatefulTasks({ scenario, seed: 0, count: 20 }, sandbox);
      figures.push({ name: `${scenario} tasks with oracles (20)`, value: 20 / ((performance.now() - start) / 1000), unit: 'tasks/s' });
      const table = tableOne(run.tasks.map((task) => task.statistics));
      figures.push({ name: `${scenario} Table I instruction length`, value: table.instructionLength, unit: 'cl100k tokens' });
      figures.push({ name: `${scenario} Table I code length`, value: table.codeLength, unit: 'cl100k tokens' });
      figures.push({ name: `${scenario} Table I function calls`, value: table.functionCalls, unit: 'calls' });
      figures.push({ name: `${scenario} Table I path depth`, value: table.pathDepth, unit: '' });
      figures.push({ name: `${scenario} Table I binding count`, value: table.bindingCount, unit: '' });
    }
  } finally {
    await sandbox.dispose();
  }
  return figures;
}
