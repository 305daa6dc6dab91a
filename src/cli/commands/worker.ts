import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { renderRunTable } from '../../report/render-table.ts';
import { summaryObject } from '../../report/run-report.ts';
import { runWorker } from '../../runner/run-worker.ts';
import type { CliIo } from '../cli-io.ts';
import { parseHttpUrl, parseMilliseconds, parsePositiveInteger, parseText, resolveDatabasePath } from '../option-parsers.ts';
import { createProgressDisplay } from '../progress-display.ts';
import { addExecutionOptions, databaseFlag, executionFlags, listenForInterrupt, resumable, runExitCodes } from './run.ts';
import type { RunOutcome } from './run.ts';
import { recordedArguments } from '../recorded-arguments.ts';

type WorkerFlags = {
  run: string;
  db?: string;
  concurrency?: number;
  lease?: number;
  workerId?: string;
  baseUrl?: string;
  maxRetries?: number;
  maxRetryWait?: number;
  requestTimeout?: number;
  episodeTimeout?: number;
  stopAfterErrors?: number;
  json?: boolean;
};

export function registerWorkerCommand(program: Command, io: CliIo, argv: readonly string[], outcome: RunOutcome): void {
  const command = program
    .command('worker')
    .description("run a stored run's queued episodes alongside other workers sharing the database (a team run: 'run --workers-only' queues one); a killed worker's episodes are claimed by the others when its leases expire")
    .requiredOption('--run <id>', "the run to work on, as 'run --workers-only' printed it ('latest' is not accepted: teammates may start runs)", parseWorkerRun)
    .option('--db <url|file>', 'the shared results database: postgres://user:password@host:port/database (or a SQLite file on this machine)', parseText)
    .option('--concurrency <n>', "episodes this worker runs at once (default: the run's)", parsePositiveInteger)
    .option('--lease <ms>', 'how long a claimed episode stays this worker\'s without renewal (default 60000)', parseMilliseconds)
    .option('--worker-id <name>', 'the name on this worker\'s leases (default: host, pid and a random suffix)', parseText)
    .option('--base-url <url>', "the model's endpoint as this machine reaches it (default: the run's)", parseHttpUrl);
  addExecutionOptions(command, 'this worker')
    .option('--json', 'print one JSON summary object on stdout and nothing else')
    .action(async (flags: WorkerFlags) => {
      const progress = createProgressDisplay(io);
      const interrupt = listenForInterrupt();
      // Whether it began work on the run: a failure after that (a full disk) says how to carry on.
      let started = false;
      try {
        const summary = await runWorker({
          runId: flags.run, dbPath: resolveDatabasePath(flags.db, io.cwd), concurrency: flags.concurrency, leaseMs: flags.lease, workerId: flags.workerId,
          baseUrl: flags.baseUrl, env: io.env, signal: interrupt.signal, cliArgs: recordedArguments(argv), ...executionFlags(flags),
          onProgress: (event) => {
            if (event.type === 'run-start') started = true;
            progress.listener(event);
          },
        });
        progress.stop();
        if (flags.json) {
          io.stdout(`${JSON.stringify({ ...summaryObject(summary), workerId: summary.workerId, episodesRun: summary.episodesRun })}\n`);
        } else {
          io.stdout(`${renderRunTable(summary)}\nworker ${summary.workerId} ran ${summary.episodesRun} episodes of run ${summary.runId}`
            + `${summary.status === 'finished' ? '; the run is finished' : '; other workers hold the rest'}\n`);
        }
        if (interrupt.signal.aborted) outcome.exitCode = runExitCodes.interrupted;
      } catch (error) {
        progress.stop();
        if (started && resumable(error)) {
          io.stderr(`worker stopped; the episodes it finished are stored, and those it held are claimed again once their leases lapse. After fixing the error below, start it again with: toolforge worker --run ${flags.run}${databaseFlag(flags)}\n`);
        }
        throw error;
      } finally {
        interrupt.dispose();
        progress.stop();
      }
    });
}

/** A worker names its run: on a shared database 'latest' could be a teammate's run started a second ago. */
function parseWorkerRun(value: string): string {
  if (value === 'latest') throw new InvalidArgumentError("a worker names its run: pass the id 'run --workers-only' printed (see 'toolforge runs --db <same database>')");
  return value;
}
