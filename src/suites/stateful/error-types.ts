/**
 * The paper's RQ4 error types per task: a task fails with the first failing kind in the order syntax error,
 * runtime (execution) error, wrong result, wrong state, taken over all its test cases; the distribution counts
 * tasks per outcome.
 */
import type { TestCaseVerdict } from './oracle.ts';

export const taskOutcomes = ['passed', 'syntax-error', 'runtime-error', 'wrong-result', 'wrong-state'] as const;
export type TaskOutcome = typeof taskOutcomes[number];

export function taskOutcome(verdicts: readonly TestCaseVerdict[]): TaskOutcome {
  for (const kind of ['syntax-error', 'runtime-error', 'wrong-result', 'wrong-state'] as const) if (verdicts.includes(kind)) return kind;
  return 'passed';
}

export function errorTypeDistribution(tasks: readonly (readonly TestCaseVerdict[])[]): Record<TaskOutcome, number> {
  const counts = Object.fromEntries(taskOutcomes.map((outcome) => [outcome, 0])) as Record<TaskOutcome, number>;
  for (const verdicts of tasks) counts[taskOutcome(verdicts)] += 1;
  return counts;
}
