/**
 * The suite summary: pass@1 (and pass@k with trials: a task passes a trial only if every test case passes), the
 * RQ4 error-type distribution, the paper's Table I statistics of the tasks in the run, and the adjacent-transition
 * coverage (Eq. 3) of the run's programs against their number (Fig. 3), per scenario, beside the coverage-guided
 * generator's and the w/o-COV ablation's drawn with the run's seed and knobs (programs only, up to 120 of them).
 */
import { meanPassAtK } from '../../metrics/pass-at-k.ts';
import type { Task } from '../../core/task.ts';
import type { ReportTable, ScoredEpisode, ScoredEpisodes, SuiteSummary } from '../spec.ts';
import { taskOutcomes } from './error-types.ts';
import { drawPrograms } from './generate-stateful-tasks.ts';
import { coverageCurve } from './program-statistics.ts';
import type { StatefulScoreDetails } from './score-stateful.ts';
import { scenarioIds } from './stateful-backend.ts';
import { parseStatefulParams } from './stateful-knobs.ts';
import { statefulScenarios } from './stateful-scenarios.ts';
import { readStatefulExpected } from './stateful-task.ts';

const outcomes = [...taskOutcomes, 'no-program', 'not-run'] as const;
type Outcome = typeof outcomes[number];

const outcomeMetric: Record<Exclude<Outcome, 'passed'>, string> = {
  'syntax-error': 'syntaxErrorRate', 'runtime-error': 'runtimeErrorRate', 'wrong-result': 'wrongResultRate', 'wrong-state': 'wrongStateRate',
  'no-program': 'noProgramRate', 'not-run': 'notRunRate',
};

function outcomeOf(episode: ScoredEpisode<StatefulScoreDetails>): Outcome {
  return episode.score.details?.outcome ?? (episode.score.passed ? 'passed' : 'runtime-error');
}

const statisticColumns = [
  ['instructionTokens', 'instruction length (tokens)'],
  ['codeTokens', 'code length (tokens)'],
  ['functionCalls', 'API calls'],
  ['pathDepth', 'path depth'],
  ['bindingCount', 'bindings'],
] as const;

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

/** Programs drawn again per generator for the Fig. 3 comparison (a few seconds at most, on every summary). */
const maxRedrawnPrograms = 120;

/** What Table I and the ATC curve read of a task: kept once per task, not per episode. */
type TaskFacts = Pick<Task, 'id' | 'stats' | 'seed' | 'params'> & { program: ReturnType<typeof readStatefulExpected>['program'] };

export function summarizeStateful(episodes: ScoredEpisodes<StatefulScoreDetails>): SuiteSummary {
  const metrics: Record<string, number> = {};
  const tables: ReportTable[] = [];
  const byTask = new Map<string, { total: number; passed: number }>();
  const perOutcome = new Map<Outcome, number>(outcomes.map((outcome) => [outcome, 0]));
  const taskFacts = new Map<string, TaskFacts>();
  let episodeCount = 0;
  // One pass: per-task counts, outcomes, and each distinct task's facts.
  for (const episode of episodes) {
    const { task } = episode;
    const counts = byTask.get(task.id) ?? { total: 0, passed: 0 };
    counts.total += 1;
    if (episode.score.passed) counts.passed += 1;
    byTask.set(task.id, counts);
    perOutcome.set(outcomeOf(episode), (perOutcome.get(outcomeOf(episode)) ?? 0) + 1);
    episodeCount += 1;
    if (!taskFacts.has(task.id)) taskFacts.set(task.id, { id: task.id, stats: task.stats, seed: task.seed, params: task.params, program: readStatefulExpected(task).program });
  }
  const counts = [...byTask.values()];
  metrics.passAt1 = meanPassAtK(counts, 1) ?? 0;
  const trials = counts.length === 0 ? 0 : Math.min(...counts.map((count) => count.total));
  for (let k = 2; k <= trials; k += 1) metrics[`passAt${k}`] = meanPassAtK(counts, k) ?? 0;

  // RQ4: episodes per outcome.
  const total = episodeCount || 1;
  for (const [outcome, name] of Object.entries(outcomeMetric)) metrics[name] = (perOutcome.get(outcome as Outcome) ?? 0) / total;
  tables.push({
    title: 'Error types (RQ4): episodes by outcome',
    columns: ['outcome', 'episodes', 'share'],
    rows: outcomes.filter((outcome) => (perOutcome.get(outcome) ?? 0) > 0 || (taskOutcomes as readonly string[]).includes(outcome))
      .map((outcome) => [outcome, perOutcome.get(outcome) ?? 0, round((perOutcome.get(outcome) ?? 0) / total)]),
  });

  // Table I and the ATC curve over the distinct tasks of the run, per scenario.
  const tasks = [...taskFacts.values()];
  const tableOneRows: (string | number)[][] = [];
  const curveRows: (string | number | null)[][] = [];
  for (const scenario of scenarioIds) {
    const scenarioTasks = tasks.filter((task) => task.stats.scenario === scenario);
    if (scenarioTasks.length === 0) continue;
    const mean = (name: string) => scenarioTasks.reduce((sum, task) => sum + (typeof task.stats[name] === 'number' ? task.stats[name] as number : 0), 0) / scenarioTasks.length;
    tableOneRows.push([scenario, scenarioTasks.length, ...statisticColumns.map(([name]) => round(mean(name), 2))]);
    const programs = scenarioTasks.map((task) => task.program);
    const checkpoints = [...new Set([20, 40, 60].filter((point) => point < programs.length).concat(programs.length))];
    const apis = statefulScenarios[scenario].apis.length;
    // The two generators with the run's seed and knobs (when its tasks share them).
    const seeds = new Set(scenarioTasks.map((task) => task.seed));
    const knobs = new Set(scenarioTasks.map((task) => { const { calls, branch } = parseStatefulParams(task.params); return `${calls}/${branch}`; }));
    const redraw = (coverage: boolean): (number | null)[] => {
      if (seeds.size !== 1 || knobs.size !== 1) return checkpoints.map(() => null);
      const { calls, branch } = parseStatefulParams(scenarioTasks[0].params);
      const drawn = drawPrograms({ scenario, seed: scenarioTasks[0].seed, count: Math.min(programs.length, maxRedrawnPrograms), calls, branch, coverage });
      return checkpoints.map((point) => (point <= drawn.length ? round(coverageCurve(drawn, apis, [point])[0].atc) : null));
    };
    const guided = redraw(true);
    const ablation = redraw(false);
    coverageCurve(programs, apis, checkpoints).forEach((point, index) => curveRows.push([scenario, point.programs, round(point.atc), guided[index], ablation[index]]));
    if (scenarioTasks.length === tasks.length) {
      metrics.adjacentTransitionCoverage = round(coverageCurve(programs, apis, [programs.length])[0].atc);
      const lastAblation = ablation.at(-1);
      if (typeof lastAblation === 'number') metrics.adjacentTransitionCoverageAblation = lastAblation;
    }
  }
  tables.push({ title: 'Table I: task statistics (means over the tasks of the run)', columns: ['scenario', 'tasks', ...statisticColumns.map(([, title]) => title)], rows: tableOneRows });
  tables.push({
    title: 'Adjacent-transition coverage (Eq. 3) against the number of programs (Fig. 3): this run, and both generators drawn with its seed and knobs',
    columns: ['scenario', 'programs', 'ATC (this run)', 'ATC coverage-guided', 'ATC w/o-COV ablation'],
    rows: curveRows,
    chart: { kind: 'line', x: 'programs', lines: ['ATC (this run)', 'ATC coverage-guided', 'ATC w/o-COV ablation'], panel: 'scenario', yLabel: 'adjacent-transition coverage', yDomain: [0, 1] },
  });
  return { metrics, tables };
}
