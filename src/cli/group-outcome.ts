/**
 * How a group of runs (an eval set, a sweep) ended, told the way a single run's end is: the runs with episodes not
 * scored or tasks not all stored, their most frequent cause and how to finish them; a run that scored nothing makes the exit code 3, and an
 * eval set's `--fail-under` gates every run (exit code 4), so CI never takes a group with a dead model for a result.
 */
import { formatPercent } from '../report/format-figure.ts';
import type { ResultsStore } from '../store/index.ts';
import { startAgainFix } from '../runner/interrupted-run.ts';
import { summarizeRun } from '../runner/summarize-run.ts';
import type { CliIo } from './cli-io.ts';
import { infrastructureCauses } from './infrastructure-causes.ts';

export const groupExitCodes = { nothingScored: 3, belowThreshold: 4 } as const;

export type GroupGate = { failUnder?: number; failUnderLower?: boolean };

/**
 * Writes what needs the user's attention to stderr and returns the group's exit code (0 when nothing does). With
 * `interrupted`, names the unfinished runs only; the caller exits as interrupted.
 */
export function reportGroupOutcome(
  store: ResultsStore, runIds: readonly string[],
  how: { finish: (runId: string) => string; gate?: GroupGate; interrupted?: boolean; /** The ` --db <file>` commands say. */ databaseFlag?: string },
  io: CliIo,
): number {
  let nothingScored = 0;
  const below: string[] = [];
  for (const runId of runIds) {
    const run = store.getRun(runId);
    const summary = summarizeRun(store, runId);
    const unscored = summary.infrastructureErrors + summary.missingEpisodes;
    const label = `run ${runId} (${run.model} on ${run.suite.id})`;
    // Stopped while its tasks were stored (a run as made, or one importing them): every stored task's episodes may be
    // scored, and still the rest of its tasks were never run.
    if (summary.tasksIncomplete === 'resumable') {
      io.stderr(`${label}: stopped while its tasks were still being stored (${summary.tasks} so far); store the rest and run the missing episodes with: ${how.finish(runId)}\n`);
    } else if (summary.tasksIncomplete === 'start-again') {
      io.stderr(`${label}: stopped while its tasks were still being stored, and nothing can make the rest of them again: ${startAgainFix(run, how.databaseFlag)}\n`);
    } else if (unscored > 0) {
      const cause = infrastructureCauses(store, runId)[0]?.text.split('\n')[0];
      io.stderr(`${label}: ${unscored} of ${run.taskCount * run.trials} episodes not scored${cause ? ` (${cause})` : ''}; finish them with: ${how.finish(runId)}\n`);
    }
    if (summary.episodes === 0) {
      nothingScored += 1;
      continue;
    }
    const gate = how.gate;
    if (gate?.failUnder === undefined) continue;
    const measured = gate.failUnderLower ? summary.passRateCI95[0] : summary.passRate;
    if (measured < gate.failUnder) below.push(`${label}: ${gate.failUnderLower ? "the pass rate's 95% lower bound" : 'the pass rate'} ${formatPercent(measured)}`);
  }
  // An interrupted group exits as interrupted: only how to finish its runs is worth saying.
  if (how.interrupted) return 0;
  if (nothingScored > 0) {
    io.stderr(`no episode scored in ${nothingScored} of ${runIds.length} runs: they have no pass rate to report (exit code ${groupExitCodes.nothingScored})\n`);
    return groupExitCodes.nothingScored;
  }
  if (below.length > 0 && how.gate?.failUnder !== undefined) {
    io.stderr(`--fail-under: ${below.length} of ${runIds.length} runs are below ${formatPercent(how.gate.failUnder)} (exit code ${groupExitCodes.belowThreshold}):\n${below.map((line) => `  ${line}\n`).join('')}`);
    return groupExitCodes.belowThreshold;
  }
  return 0;
}

