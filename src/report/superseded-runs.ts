/**
 * A rescore (toolforge rescore) is the same episodes scored again: a report over a group of runs (every run in the
 * database, a sweep) that counted a run and its rescore would count those episodes twice and narrow every interval.
 * Of each line of rescores (a run, its rescores, their rescores) present, only the newest is reported. Runs the user
 * names one by one are reported as named.
 */
import type { StoredRun } from '../store/stored-run.ts';

export type SupersededRun = { runId: string; by: string };

/** `runs` oldest first (as reports read them): the ones to report, in the same order, and the ones left out. */
export function withoutSupersededRuns(runs: readonly StoredRun[]): { runs: StoredRun[]; superseded: SupersededRun[] } {
  const byId = new Map(runs.map((run) => [run.id, run]));
  // The first run of each line present here: a rescore of a run not in the set starts its own line.
  const lineOf = (run: StoredRun): string => {
    let current = run;
    const seen = new Set<string>();
    for (;;) {
      const from = current.provenance.rescoredFrom;
      const parent = from === undefined ? undefined : byId.get(from);
      if (parent === undefined || seen.has(parent.id)) return current.id;
      seen.add(current.id);
      current = parent;
    }
  };
  const newest = new Map<string, string>();
  for (const run of runs) newest.set(lineOf(run), run.id);
  const kept: StoredRun[] = [];
  const superseded: SupersededRun[] = [];
  for (const run of runs) {
    const by = newest.get(lineOf(run)) as string;
    if (by === run.id) kept.push(run);
    else superseded.push({ runId: run.id, by });
  }
  return { runs: kept, superseded };
}

/** What a report says of the runs it left out. */
export function supersededNote(superseded: readonly SupersededRun[]): string | undefined {
  if (superseded.length === 0) return undefined;
  const list = superseded.map(({ runId, by }) => `${runId} (rescored as ${by})`).join(', ');
  return `left out ${superseded.length === 1 ? 'a run' : `${superseded.length} runs`} whose episodes a newer rescore reports: ${list}; name runs to report them side by side`;
}
