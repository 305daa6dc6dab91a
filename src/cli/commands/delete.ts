import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { checkRunNotHeld } from '../../runner/run-hold.ts';
import { openResultsStore } from '../../store/index.ts';
import type { CliIo } from '../cli-io.ts';
import { openExistingStore, withStore } from '../open-store.ts';
import { resolveDatabasePath } from '../option-parsers.ts';

export function registerDeleteCommand(program: Command, io: CliIo): void {
  program
    .command('delete')
    .description('delete runs (their tasks and episodes) from the results database')
    .argument('<runs...>', "run ids as 'toolforge runs' lists them ('latest' is not accepted: name what you delete)")
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action(async (given: string[], options: { db?: string }) => {
      if (given.includes('latest')) {
        throw new ConfigError('config.invalid', "delete does not take 'latest': name the runs you delete", { fix: "list them with 'toolforge runs' and pass their ids" });
      }
      // A run named twice is deleted once.
      const runIds = [...new Set(given)];
      const path = resolveDatabasePath(options.db, io.cwd);
      // Check every id first (read-only), so a typo in the last id, or a run still running, deletes nothing.
      await withStore(openExistingStore(path), (store) => {
        for (const runId of runIds) {
          store.getRun(runId);
          checkRunNotHeld(store, runId, 'deleted');
        }
      });
      await withStore(openResultsStore(path), (store) => {
        for (const runId of runIds) {
          const counts = store.countEpisodes(runId);
          store.deleteRun(runId);
          io.stdout(`deleted run ${runId} (${counts.scored + counts['infrastructure-error'] + counts.cancelled} episodes)\n`);
        }
      });
    });
}
