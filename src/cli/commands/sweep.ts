import type { Command } from 'commander';
import { onStopSignal } from '../stop-signals.ts';
import { InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { modes } from '../../core/mode.ts';
import type { Mode } from '../../core/mode.ts';
import { defaultPrices, readPriceFile } from '../../report/model-prices.ts';
import { runSweep } from '../../runner/run-sweep.ts';
import { getSuite } from '../../suites/registry.ts';
import type { CliIo } from '../cli-io.ts';
import { collectSetting, collectTransform, parseHttpUrl, parseNonNegativeInteger, parsePositiveInteger, parseTemperature, parseText, repeatable, resolveDatabasePath } from '../option-parsers.ts';
import { createProgressDisplay } from '../progress-display.ts';
import { checkOutputPath } from '../output-path.ts';
import { writeOutputFile } from '../write-output-file.ts';
import type { ReportFormat } from './report.ts';
import { renderStoredReport } from './report.ts';
import { recordedArguments } from '../recorded-arguments.ts';
import { shellArgument } from '../../core/shell-argument.ts';
import { reportGroupOutcome } from '../group-outcome.ts';
import { openStoreForRuns } from '../open-store.ts';
import type { RunOutcome } from './run.ts';
import { addExecutionOptions, databaseFlag, executionFlags, resumable, runExitCodes, runKept, settingsOf, stoppedRunText } from './run.ts';

type SweepFlags = {
  grid?: Record<string, string[]>;
  model?: string[];
  set?: Record<string, string>;
  seed?: number;
  count?: number;
  trials?: number;
  concurrency?: number;
  mode?: Mode;
  baseUrl?: string;
  temperature?: number;
  maxOutputTokens?: number;
  transform?: string[];
  maxRetries?: number;
  maxRetryWait?: number;
  requestTimeout?: number;
  episodeTimeout?: number;
  stopAfterErrors?: number;
  db?: string;
  format: ReportFormat;
  prices?: string;
  out?: string;
};

export function registerSweepCommand(program: Command, io: CliIo, argv: readonly string[], outcome: RunOutcome = { exitCode: 0 }): void {
  const command = program
    .command('sweep')
    .description('run the cross product of knob values (a difficulty grid) with one or more models as one group of runs, then report accuracy along each knob')
    .argument('<suite>', "suite id (see 'toolforge suites')")
    .option('--grid <knob=v1,v2,...>', 'a knob and the values to sweep, repeatable (the cross product is run)', collectGrid)
    .option('--model <ref>', 'a model to run at every grid point, repeatable', collectModel)
    .option('--set <name=value>', 'a knob held fixed at every point, repeatable', collectSetting)
    .option('--seed <n>', 'generation seed (default 0)', parseNonNegativeInteger)
    .option('--count <n>', "tasks per grid point (default: the suite's default count)", parsePositiveInteger)
    .option('--trials <n>', 'attempts per task (default 1)', parsePositiveInteger)
    .option('--concurrency <n>', 'episodes in flight (default 4)', parsePositiveInteger)
    .addOption(new Option('--mode <mode>', "interaction mode (default: each task's first mode)").choices(modes))
    .option('--base-url <url>', 'the endpoint of the --model(s)', parseHttpUrl)
    .option('--temperature <t>', 'sampling temperature', parseTemperature)
    .option('--max-output-tokens <n>', 'output token cap per model call', parsePositiveInteger)
    .option('--transform <id[:k=v,...]>', "derive every point's tasks with a transform, repeatable, in order (one that needs only the seed: a sweep has no phrasing model)", collectTransform);
  addExecutionOptions(command, 'the whole sweep')
    .option('--db <file>', 'results database (default .toolforge/results.db)', parseText)
    .addOption(new Option('--format <format>', 'report format').choices(['table', 'json', 'html']).default('table'))
    .option('--prices <file>', 'JSON model prices for the report (see report --help)')
    .option('--out <file>', 'write the report to this file instead of stdout (- or no --out: stdout)')
    .action(async (suiteId: string, flags: SweepFlags) => {
      const suite = getSuite(suiteId);
      const prices = flags.prices === undefined ? defaultPrices : readPriceFile(resolve(io.cwd, flags.prices));
      // Checked before the first point runs; it is written only once every point has.
      if (flags.out !== undefined) checkOutputPath(io.cwd, flags.out);
      const store = openStoreForRuns(resolveDatabasePath(flags.db, io.cwd));
      const progress = createProgressDisplay(io);
      const controller = new AbortController();
      const onInterrupt = (): void => controller.abort(new Error('interrupted'));
      const stopListening = onStopSignal(onInterrupt);
      // The point and run under way, so a failure that stops the sweep (a full disk) names the run to continue.
      let current: { point: string; runId?: string } | undefined;
      try {
        const result = await runSweep({
          suite, grid: flags.grid ?? {}, models: flags.model ?? [], fixed: flags.set, transforms: flags.transform, directory: io.cwd, seed: flags.seed, count: flags.count, trials: flags.trials,
          concurrency: flags.concurrency, mode: flags.mode, baseUrl: flags.baseUrl, store, env: io.env, signal: controller.signal, cliArgs: recordedArguments(argv),
          settings: settingsOf(flags), ...executionFlags(flags),
          onProgress: (event) => {
            if ((event.type === 'run-recorded' || event.type === 'run-start') && current !== undefined) current.runId = event.runId;
            progress.listener(event);
          },
          onPoint: ({ point, index, points }) => {
            current = { point: `${index + 1}/${points}` };
            io.stderr(`point ${index + 1}/${points}: ${Object.entries(point).map(([name, value]) => `${name}=${value}`).join(' ')}\n`);
          },
        });
        progress.stop();
        for (const skipped of result.skipped) io.stderr(`skipped ${Object.entries(skipped.point).map(([name, value]) => `${name}=${value}`).join(' ')}: ${skipped.reason}\n`);
        io.stderr(`sweep ${result.group}: ${result.runs.length} runs${result.cancelled ? ' (interrupted: the report covers the runs so far)' : ''} (report it again with: toolforge report --sweep ${shellArgument(result.group)}${databaseFlag(flags)})\n`);
        if (result.runs.length === 0) {
          if (result.cancelled) outcome.exitCode = runExitCodes.interrupted;
          return;
        }
        const runIds = result.runs.map((run) => run.summary.runId);
        const output = renderStoredReport(store, runIds, flags.format, { prices, runDetails: false });
        if (flags.out) {
          const kept = `the sweep's runs are stored: write the report with toolforge report --sweep ${shellArgument(result.group)} --format ${flags.format}${databaseFlag(flags)} --out <file>`;
          io.stderr(`wrote ${flags.format} report to ${await writeOutputFile(io.cwd, flags.out, output, kept)}\n`);
        }
        else io.stdout(output);
        // Interrupted too, each unfinished run is named with the command that finishes it.
        const code = reportGroupOutcome(store, runIds, {
          finish: (runId) => `toolforge run --resume ${runId}${databaseFlag(flags)}`, interrupted: result.cancelled, databaseFlag: databaseFlag(flags),
        }, io);
        outcome.exitCode = result.cancelled ? runExitCodes.interrupted : code;
      } catch (error) {
        progress.stop();
        if (current?.runId !== undefined && resumable(error) && runKept(store, current.runId, error)) {
          io.stderr(`sweep stopped at point ${current.point}: ${stoppedRunText(store, current.runId, `toolforge run --resume ${current.runId}${databaseFlag(flags)}`, databaseFlag(flags))} (the points after it did not run)\n`);
        }
        throw error;
      } finally {
        stopListening();
        progress.stop();
        store.close();
      }
    });
}

/** Repeatable `--grid core=5,10,20`. */
const collectGrid = repeatable((value: string, previous: Record<string, string[]> = {}): Record<string, string[]> => {
  const equals = value.indexOf('=');
  const name = value.slice(0, equals).trim();
  const values = value.slice(equals + 1).split(',').map((item) => item.trim());
  if (equals <= 0 || values.some((item) => item === '')) throw new InvalidArgumentError('expected knob=v1,v2,..., e.g. --grid core=5,10,20');
  if (Object.hasOwn(previous, name)) throw new InvalidArgumentError(`--grid ${name} was given twice; list all its values once (--grid ${name}=v1,v2,...)`);
  return { ...previous, [name]: values };
});

const collectModel = repeatable((value: string, previous: string[] = []): string[] => [...previous, parseText(value)]);
