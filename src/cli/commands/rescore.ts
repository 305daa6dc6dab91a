import type { Command } from 'commander';
import { textCaps } from '../../core/cap-text.ts';
import { renderRunTable } from '../../report/render-table.ts';
import { summaryObject } from '../../report/run-report.ts';
import { rescoreRun } from '../../runner/rescore-run.ts';
import type { CliIo } from '../cli-io.ts';
import { openExistingStoreForWriting } from '../open-store.ts';
import { resolveDatabasePath } from '../option-parsers.ts';
import { resolveRunId } from './resolve-run-id.ts';
import { recordedArguments } from '../recorded-arguments.ts';
import { addRequestRetryOptions, databaseFlag, executionFlags } from './run.ts';
import { resumeCommand } from '../../runner/external-agent-run.ts';
import { isStoreWriteFailure } from '../../core/system-error.ts';

type RescoreFlags = { db?: string; json?: boolean; maxRetries?: number; maxRetryWait?: number; requestTimeout?: number };

export function registerRescoreCommand(program: Command, io: CliIo, argv: readonly string[]): void {
  const command = program
    .command('rescore')
    .description("re-score a stored run with the current scorer (the model under test is not called; a scorer's own model, toolbench's judge, is when its verdict is not cached); the result is a new run linked to the old one")
    .argument('<run>', "a run id, or 'latest'")
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .option('--json', 'print one JSON summary object on stdout and nothing else');
  addRequestRetryOptions(command, 'the rescore')
    .action(async (run: string, flags: RescoreFlags) => {
      const store = openExistingStoreForWriting(resolveDatabasePath(flags.db, io.cwd));
      try {
        const runId = resolveRunId(store, run);
        const old = store.getRun(runId);
        const summary = await rescoreRun({ runId, store, cliArgs: recordedArguments(argv), retry: executionFlags(flags).retry, env: io.env }).catch((error: unknown) => {
          // The store failed a write (a full disk): the rescore is made again, not continued; the generic fix speaks of runs.
          if (isStoreWriteFailure(error)) io.stderr(`rescore of run ${runId} stopped; a rescore is made again, not continued. After fixing the error below, rescore it again with: toolforge rescore ${runId}${databaseFlag(flags)}\n`);
          throw error;
        });
        const planned = old.taskCount * old.trials;
        const scored = store.countEpisodes(runId).scored;
        if (scored < planned) {
          io.stderr(`note: run ${runId} is ${old.status === 'finished' ? 'finished' : 'not finished'} with ${scored} of its ${planned} episodes scored, so this rescore holds those ${scored}; to rescore them all, finish it (${resumeCommand(old, databaseFlag(flags))}) and rescore it again\n`);
        }
        if (summary.keptScores !== undefined) {
          io.stderr(`note: ${summary.keptScores} episode(s) kept the score they had: a message of their transcript was stored cut at ${textCaps.content.toLocaleString('en-US')} characters, and the scorer read it whole\n`);
        }
        if (flags.json) {
          io.stdout(`${JSON.stringify({ ...summaryObject(summary), rescoredFrom: runId, ...(summary.keptScores !== undefined ? { keptScores: summary.keptScores } : {}) })}\n`);
          return;
        }
        io.stdout(`${renderRunTable(summary)}\nre-scored run ${runId} as ${summary.runId} (the model under test was not called)\n`);
      } finally {
        store.close();
      }
    });
}
