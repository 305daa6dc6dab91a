import { ConfigError } from '../../core/errors.ts';
import type { ResultsStore } from '../../store/index.ts';

/** A run id as typed: an id, or 'latest' for the newest run. getRun-style errors name the fix. */
export function resolveRunId(store: ResultsStore, run: string): string {
  if (run !== 'latest') {
    store.getRun(run);
    return run;
  }
  const latest = store.latestRun();
  if (!latest) {
    throw new ConfigError('store.unknown-run', 'there are no runs in this results database', {
      fix: "start one with 'toolforge run <suite> --model <ref>', or pass --db <file> to read another database",
    });
  }
  return latest.id;
}
