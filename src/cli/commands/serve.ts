import type { Command } from 'commander';
import { onStopSignal } from '../stop-signals.ts';
import { resolve } from 'node:path';
import type { JsonObject } from '../../core/json.ts';
import type { Mode } from '../../core/mode.ts';
import type { Task } from '../../core/task.ts';
import { renderRunTable } from '../../report/render-table.ts';
import { summaryObject } from '../../report/run-report.ts';
import { streamGeneratedTasks, validateTaskStream } from '../../runner/generate-tasks.ts';
import { checkExpected } from '../../runner/store-tasks.ts';
import { emptyTasksFile, streamTasksFile, tasksFileSuite } from '../../runner/read-tasks-file.ts';
import { ConfigError } from '../../core/errors.ts';
import { resolveKnobs } from '../../suites/knob.ts';
import { getSuite } from '../../suites/registry.ts';
import type { ResultsStore } from '../../store/index.ts';
import type { Suite } from '../../suites/spec.ts';
import { checkSuiteMode } from '../../runner/episode-mode.ts';
import { checkTransformChain, parseSeededTransformRequest, transformStream } from '../../transforms/registry.ts';
import type { TransformRequest } from '../../transforms/spec.ts';
import type { CliIo } from '../cli-io.ts';
import { openExistingStoreForWriting, openStoreForRuns } from '../open-store.ts';
import { recordedArguments } from '../recorded-arguments.ts';
import { resolveRunId } from './resolve-run-id.ts';
import type { RunSummary } from '../../runner/summarize-run.ts';
import { collectTransform, flagName, parseMilliseconds, parseModelName, parsePort, parsePositiveInteger, parseText, resolveDatabasePath } from '../option-parsers.ts';
import type { RunTaskFlags } from '../run-task-options.ts';
import { addRunTaskOptions, checkValidateFlag } from '../run-task-options.ts';
import { databaseFlag, resumable, runExitCodes, runKept, stoppedRunText } from './run.ts';
import type { RunOutcome } from './run.ts';
import { infrastructureCauses } from '../infrastructure-causes.ts';
import { resumeCommand } from '../../runner/external-agent-run.ts';
import { isStoreWriteFailure } from '../../core/system-error.ts';

/** The MCP server code, loaded when a serve command runs: the SDK would cost every other command ~95 ms to start. */
const loadServeRun = (): Promise<typeof import('../../mcp/serve-run.ts')> => import('../../mcp/serve-run.ts');

type ServeFlags = RunTaskFlags & {
  port?: number; stdio?: boolean; clientName?: string; episodeTimeout?: number; json?: boolean; resume?: string; transform?: string[];
};

/** `argv` is recorded with each served run as provenance. */
export function registerServeCommand(program: Command, io: CliIo, argv: readonly string[] = [], outcome: RunOutcome = { exitCode: 0 }): void {
  const command = program
    .command('serve')
    .description('serve the episodes of a run over MCP (streamable HTTP on 127.0.0.1): one session per episode; scored and stored like any run (model mcp/<client name>)')
    .argument('[suite]', "suite id (see 'toolforge suites'); optional with --resume, and with --tasks (the file's tasks name it)");
  addRunTaskOptions(command, { modeDefault: 'calls when a task has it, else code, else its first mode', concurrency: 'episodes open to clients at once (default 1)' })
    .option('--port <n>', 'the port on 127.0.0.1 (default: a free one, printed)', parsePort)
    .option('--stdio', 'serve one client on stdin/stdout instead (the episodes in turn; the summary goes to stderr)')
    .option('--client-name <name>', "the run's model is mcp/<name> (default: the name the first client gives)", parseModelName)
    .option('--episode-timeout <ms>', "each episode's time limit once a client has it (past it: an infrastructure error)", parseMilliseconds)
    .option('--transform <id[:k=v,...]>', 'derive every task with a transform, repeatable, in order (one that needs only the seed, e.g. perturb:kind=case-mix or drift:op=rename)', collectTransform)
    .option('--resume <run>', "serve a stored served run's missing and infrastructure-error episodes again ('latest' for the newest)", parseText)
    .option('--json', 'print one JSON summary object on stdout at the end')
    .action(async (suiteArgument: string | undefined, flags: ServeFlags) => {
      const cliArgs = recordedArguments(argv);
      if (flags.stdio && flags.port !== undefined) {
        throw new ConfigError('config.invalid', '--stdio serves on stdin/stdout, so --port has nothing to set', { fix: 'drop --port to serve over stdio, or drop --stdio to serve over HTTP on that port' });
      }
      checkValidateFlag(flags);
      if (flags.resume !== undefined) {
        outcome.exitCode = await resumeServedRun(suiteArgument, flags.resume, flags, cliArgs, io);
        return;
      }
      const tasksPath = flags.tasks === undefined ? undefined : resolve(io.cwd, flags.tasks);
      const suiteId = suiteArgument ?? (tasksPath === undefined ? undefined : tasksFileSuite(tasksPath));
      if (suiteId === undefined) {
        throw new ConfigError('config.invalid', 'no suite given', { fix: "name one: 'toolforge serve funcgen' (see 'toolforge suites'), or serve a tasks file with --tasks <file>" });
      }
      const suite = getSuite(suiteId);
      // Checked before tasks are made and before the endpoint listens: a client should not connect to a serve that fails.
      checkSuiteMode(suite, flags.mode);
      // serve has no phrasing model: a transform that asks one (perturb:paraphrase) is refused here, as is one given twice.
      const transforms = (flags.transform ?? []).map((text) => parseSeededTransformRequest(text, 'serve'));
      checkTransformChain(transforms);
      if (tasksPath !== undefined && (flags.count !== undefined || flags.set !== undefined)) {
        throw new ConfigError('config.invalid', '--tasks reads fixed tasks, so --count and --set have nothing to change', {
          fix: 'drop --count/--set to serve the file as it is, or drop --tasks to generate new tasks',
        });
      }
      // The seed makes tasks and seeds transforms; tasks read from a file carry their own seeds.
      if (tasksPath !== undefined && flags.seed !== undefined && transforms.length === 0) {
        throw new ConfigError('config.invalid', '--tasks reads fixed tasks (each carries the seed it was made with), so --seed has nothing to change', {
          fix: 'drop --seed to serve the file as it is; --seed seeds a --transform of the file, or drop --tasks to generate new tasks from the seed',
        });
      }
      // A bad --db fails now, not after every task was made and checked.
      const store = openStoreForRuns(resolveDatabasePath(flags.db, io.cwd));
      try {
        outcome.exitCode = await serveTasks(suite, tasksPath, transforms, flags, store, cliArgs, io);
      } finally {
        store.close();
      }
    });
}

async function serveTasks(suite: Suite, tasksPath: string | undefined, transforms: readonly TransformRequest[], flags: ServeFlags, store: ResultsStore, cliArgs: string[], io: CliIo): Promise<number> {
  const seed = flags.seed ?? 0;
  const knobs = tasksPath === undefined ? resolveKnobs(suite.id, suite.knobs, flags.set ?? {}, { directory: io.cwd }) : {};
  const lines = new Map<string, number>();
  const derived = (tasks: Iterable<Task> | AsyncIterable<Task>): Iterable<Task> | AsyncIterable<Task> => (transforms.length === 0 ? tasks : transformStream(tasks, transforms, seed, {}));
  // The second read of generated tasks makes the same tasks from the seed: builtin/oracle solved them in the first.
  const taskStream = (pass: 'check' | 'run'): Iterable<Task> | AsyncIterable<Task> => (tasksPath === undefined
    ? streamGeneratedTasks(suite, { seed, count: flags.count, params: knobs, validate: pass === 'check', ...(transforms.length > 0 ? { transforms } : {}) })
    : pass === 'run' ? derived(streamTasksFile(tasksPath, { suiteId: suite.id }))
      // The first read names a refused task by its line; builtin/oracle must solve each task as it is served (derived).
      : flags.validate
        ? validateTaskStream(suite, derived(streamTasksFile(tasksPath, { suiteId: suite.id, lines, check: (task) => checkExpected(suite, task) })), { source: flags.tasks ?? tasksPath, lineOf: (taskId) => lines.get(taskId) })
        : derived(streamTasksFile(tasksPath, { suiteId: suite.id, check: (task) => checkExpected(suite, task) })));
  // Every task is read and checked once before the endpoint listens, so a bad line or an unsolvable generated task
  // is reported before a client connects; the run then reads them again as a stream. Nothing holds them all.
  const { first, count } = await firstAndCount(taskStream('check'), (task, firstTask) => {
    // Every task must be playable in the mode served (a stateful session task has no calls mode): said now, not to a client.
    const mode = flags.mode ?? defaultMode(firstTask);
    if (mode !== undefined && !task.modes.includes(mode)) {
      throw new ConfigError('config.unsupported-mode', `task '${task.id}' does not support mode '${mode}' (it supports ${task.modes.join(', ')})`, {
        fix: flags.mode !== undefined ? `use --mode ${task.modes.join('|')}` : 'serve tasks that share a mode, or pick one with --mode',
      });
    }
  });
  // Only the first read's refusals name lines.
  lines.clear();
  if (first === undefined) {
    if (tasksPath !== undefined) throw emptyTasksFile(tasksPath);
    throw new ConfigError('config.invalid', `suite '${suite.id}' made no tasks to serve`, { fix: 'pass --count <n> >= 1, or --tasks <file>' });
  }
  const params = tasksPath === undefined ? knobs : first.params as JsonObject;
  const tasks = taskStream('run');
  const interrupt = new AbortController();
  const onInterrupt = (): void => interrupt.abort(new Error('interrupted'));
  const stopListening = onStopSignal(onInterrupt);
  // The run, once a client made it start: a failure that stops it (a full disk) names it with its serve --resume.
  let startedRunId: string | undefined;
  try {
    const { serveRun } = await loadServeRun();
    const summary = await serveRun({
      transport: flags.stdio ? 'stdio' : 'http',
      suite, tasks, mode: flags.mode ?? defaultMode(first), trials: flags.trials, concurrency: flags.concurrency ?? 1, store, seed, params, cliArgs,
      // How the tasks are read again: a serve stopped while they are stored is continued by serve --resume.
      // A derived file's tasks have no recipe or file to be read again from: they are all stored before any is served.
      ...(tasksPath === undefined
        ? { taskRecipe: { seed, ...(flags.count === undefined ? {} : { count: flags.count }), params: knobs, ...(transforms.length > 0 ? { transforms: flags.transform ?? [] } : {}) } }
        : transforms.length === 0 ? { tasksFile: { path: tasksPath, validate: flags.validate } } : {}),
      signal: interrupt.signal, port: flags.port, ...(flags.clientName !== undefined ? { clientName: flags.clientName } : {}),
      ...(flags.episodeTimeout !== undefined ? { episodeTimeoutMs: flags.episodeTimeout } : {}),
      onListening: (url) => io.stderr(`serving ${count * (flags.trials ?? 1)} ${suite.id} episodes over MCP at ${url} (one session per episode)\n`),
      onProgress: (event) => {
        if (event.type === 'run-recorded' || event.type === 'run-start') startedRunId = event.runId;
      },
    });
    return printSummary(summary, flags, io, store);
  } catch (error) {
    if (startedRunId !== undefined && resumable(error) && runKept(store, startedRunId, error)) {
      io.stderr(`${stoppedRunText(store, startedRunId, `toolforge serve --resume ${startedRunId}${databaseFlag(flags)}`, databaseFlag(flags))}\n`);
    }
    throw error;
  } finally {
    stopListening();
  }
}

/** `serve --resume`: the run's own tasks, mode, trials and client; only how it is served may change. */
async function resumeServedRun(suiteArgument: string | undefined, runReference: string, flags: ServeFlags, cliArgs: string[], io: CliIo): Promise<number> {
  const fixed = (['seed', 'count', 'set', 'mode', 'trials', 'clientName', 'transform'] as const).filter((name) => flags[name] !== undefined);
  if (fixed.length > 0) {
    const names = fixed.map(flagName).join(', ');
    throw new ConfigError('config.invalid', `--resume serves run '${runReference}' again with its own tasks, mode, trials and client; ${names} cannot change them`, {
      fix: `drop ${names}, or serve a new run without --resume`,
    });
  }
  const store = openExistingStoreForWriting(resolveDatabasePath(flags.db, io.cwd));
  const interrupt = new AbortController();
  const onInterrupt = (): void => interrupt.abort(new Error('interrupted'));
  const stopListening = onStopSignal(onInterrupt);
  let servedRunId: string | undefined;
  try {
    const run = store.getRun(resolveRunId(store, runReference));
    servedRunId = run.id;
    if (suiteArgument !== undefined && suiteArgument !== run.suite.id) {
      throw new ConfigError('config.invalid', `run '${run.id}' is a ${run.suite.id} run, not ${suiteArgument}`, {
        fix: `use '${resumeCommand(run, databaseFlag(flags))}'`,
      });
    }
    const unfinished = run.taskCount * run.trials - store.countEpisodes(run.id).scored;
    // A run stopped while its tasks were stored has more episodes than its stored tasks make: the rest are stored first.
    const described = store.hasAllTasks(run.id) ? `the ${unfinished} unfinished episodes` : `the unfinished episodes (${unfinished} of the ${run.taskCount} tasks stored so far, and those of the tasks still to be stored)`;
    const { serveResume } = await loadServeRun();
    const summary = await serveResume({
      runId: run.id, store, cliArgs, databaseFlag: databaseFlag(flags), ...(flags.tasks === undefined ? {} : { tasksFile: resolve(io.cwd, flags.tasks) }), signal: interrupt.signal, transport: flags.stdio ? 'stdio' : 'http', port: flags.port,
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      ...(flags.episodeTimeout !== undefined ? { episodeTimeoutMs: flags.episodeTimeout } : {}),
      onListening: (url) => io.stderr(`serving ${described} of run ${run.id} (${run.model}) over MCP at ${url} (one session per episode)\n`),
    });
    return printSummary(summary, flags, io, store);
  } catch (error) {
    // Served again and stopped by a failing store (a full disk): the same command continues it.
    if (servedRunId !== undefined && isStoreWriteFailure(error)) {
      io.stderr(`${stoppedRunText(store, servedRunId, `toolforge serve --resume ${servedRunId}${databaseFlag(flags)}`, databaseFlag(flags))}\n`);
    }
    throw error;
  } finally {
    stopListening();
    store.close();
  }
}

/**
 * The summary, and how to serve the episodes a client left unfinished (under --stdio, stdout is the MCP channel); the
 * exit code as `run` gives it: a serve that scored nothing is no result (exit 3, with the first cause).
 */
function printSummary(summary: RunSummary, flags: ServeFlags, io: CliIo, store: ResultsStore): number {
  const unfinished = summary.infrastructureErrors + summary.missingEpisodes;
  const text = flags.json
    ? `${JSON.stringify(summaryObject(summary))}\n`
    : `${renderRunTable(summary)}\n${unfinished > 0 ? `${unfinished} episodes not scored; serve them again with: toolforge serve --resume ${summary.runId}${databaseFlag(flags)}\n` : ''}`;
  if (flags.stdio) io.stderr(text);
  else io.stdout(text);
  if (summary.status === 'cancelled') return runExitCodes.interrupted;
  if (summary.episodes > 0) return 0;
  const cause = infrastructureCauses(store, summary.runId)[0]?.text.split('\n')[0];
  io.stderr(`no episode scored: ${summary.infrastructureErrors} infrastructure errors${cause ? ` (${cause})` : ''}, ${summary.missingEpisodes} episodes not served; there is no pass rate to report (exit code ${runExitCodes.nothingScored})\n`);
  return runExitCodes.nothingScored;
}

/** The first task and how many there are, read past once, each checked (beside the first). */
async function firstAndCount(tasks: Iterable<Task> | AsyncIterable<Task>, check: (task: Task, first: Task) => void): Promise<{ first: Task | undefined; count: number }> {
  let first: Task | undefined;
  let count = 0;
  for await (const task of tasks) {
    first ??= task;
    check(task, first);
    count += 1;
  }
  return { first, count };
}

/** MCP clients call tools: a task's `calls` mode when it has one, else `code` (run_program), else its first. */
function defaultMode(first: Task): Mode | undefined {
  return first.modes.includes('calls') ? 'calls' : first.modes.includes('code') ? 'code' : first.modes[0];
}
