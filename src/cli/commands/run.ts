import type { Command } from 'commander';
import { onStopSignal } from '../stop-signals.ts';
import { Option } from 'commander';
import { basename, dirname, extname, resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { isStoreWriteFailure } from '../../core/system-error.ts';
import type { ResultsStore } from '../../store/results-store.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Task } from '../../core/task.ts';
import { createModelSource, parseModelReference } from '../../models/registry.ts';
import { createRetryWaitBudget, defaultRequestRetryPolicy } from '../../models/request-retry.ts';
import type { GenerationSettings } from '../../models/spec.ts';
import { renderRunTable } from '../../report/render-table.ts';
import { summaryObject } from '../../report/run-report.ts';
import { streamGeneratedTasks, validateTaskStream } from '../../runner/generate-tasks.ts';
import { checkExpected } from '../../runner/store-tasks.ts';
import { emptyTasksFile, streamTasksFile, tasksFileSuite } from '../../runner/read-tasks-file.ts';
import { resolveModelSource } from '../../runner/resolve-model-source.ts';
import { checkSuiteMode } from '../../runner/episode-mode.ts';
import { resumeEvaluation, runEvaluation } from '../../runner/run-evaluation.ts';
import type { TasksFileReading } from '../../runner/run-evaluation.ts';
import type { RunOptions, TaskSource } from '../../runner/run-evaluation.ts';
import type { RunSummary } from '../../runner/summarize-run.ts';
import { resolveKnobs } from '../../suites/knob.ts';
import { getSuite } from '../../suites/registry.ts';
import type { Suite } from '../../suites/spec.ts';
import type { CliIo } from '../cli-io.ts';
import { openExistingStore, openStoreForRuns, withStore } from '../open-store.ts';
import { collectTransform, collectValues, flagName, parseHttpUrl, parseMilliseconds, parseMillisecondsBudget, parseModelName, parseNonNegativeInteger, parsePositiveInteger, parseRate, parseTemperature, parseText, resolveDatabasePath } from '../option-parsers.ts';
import { resolveRunId } from './resolve-run-id.ts';
import { failedTasksOf, selectTaskStream } from '../../runner/select-tasks.ts';
import type { TaskRecipe } from '../../runner/task-import.ts';
import { cannotStoreRestOfTasks, startAgainFix } from '../../runner/interrupted-run.ts';
import { formatPercent } from '../../report/format-figure.ts';
import { readEvalSetFile } from '../../runner/eval-set-config.ts';
import { runEvalSet } from '../../runner/run-eval-set.ts';
import { renderStoredReport } from './report.ts';
import { openResponseCache, responseCachePathFor } from '../../store/response-cache-store.ts';
import type { ResponseCacheStore } from '../../store/response-cache-store.ts';
import type { ResponseCacheCounters, ResponseCachePolicy } from '../../models/response-cache.ts';
import { checkTransformChain, parseTransformRequest, transformStream } from '../../transforms/registry.ts';
import type { TransformResources } from '../../transforms/spec.ts';
import { openParaphraseCache } from '../paraphrase-cache.ts';
import { createPhrasingModel } from '../phrasing-model.ts';
import type { AgentSource } from '../../agents/spec.ts';
import { agentCommandName, createAgentCommandSource } from '../../mcp/agent-command.ts';
import { modelName } from '../../mcp/model-name.ts';
import { createProgressDisplay } from '../progress-display.ts';
import type { RunTaskFlags } from '../run-task-options.ts';
import { addRunTaskOptions, checkValidateFlag } from '../run-task-options.ts';
import type { TransformPairs } from '../../report/transform-pairs.ts';
import { pairTransformRuns, titledTransformPairs } from '../../report/transform-pairs.ts';
import { redactUrlPasswords } from '../../core/redact-credentials.ts';
import { shellArgument } from '../../core/shell-argument.ts';
import { recordedArguments } from '../recorded-arguments.ts';
import { reportGroupOutcome } from '../group-outcome.ts';
import type { InfrastructureCause } from '../infrastructure-causes.ts';
import { infrastructureCauses } from '../infrastructure-causes.ts';

type RunFlags = RunTaskFlags & {
  model?: string;
  resume?: string;
  baseUrl?: string;
  temperature?: number;
  maxOutputTokens?: number;
  strictTools?: boolean;
  json?: boolean;
  phrasingModel?: string;
  phrasingBaseUrl?: string;
  failUnder?: number;
  failUnderLower?: boolean;
  allowMissing?: boolean;
  limit?: number;
  taskId?: string[];
  rerunFailed?: string;
  config?: string;
  cache?: ResponseCachePolicy;
  cacheDb?: string;
  maxRetries?: number;
  maxRetryWait?: number;
  requestTimeout?: number;
  episodeTimeout?: number;
  stopAfterErrors?: number;
  transform?: string[];
  baseline?: boolean;
  keepRaw?: boolean;
  agentCommand?: string;
  agentName?: string;
  workersOnly?: boolean;
};

/** Set by a run that ends without an error but not well (interrupted, nothing scored, under --fail-under). */
export type RunOutcome = { exitCode: number };

/** Exit codes of `run` beyond 0/1/2 (see main.ts): each says something different went wrong. */
export const runExitCodes = { nothingScored: 3, belowThreshold: 4, interrupted: 130 } as const;

export function registerRunCommand(program: Command, io: CliIo, argv: readonly string[], outcome: RunOutcome): void {
  const command = program
    .command('run')
    .description('generate (or read) tasks, run a model on them, score and store every episode, print a report')
    .argument('[suite]', "suite id (see 'toolforge suites'); optional with --resume, and with --tasks (the file's tasks name it)")
    .option('--model <ref>', 'builtin/oracle|random|planner, openai/<m>, anthropic/<m>, google/<m>, openai-compatible/<m>, replay/<file.jsonl>', parseText);
  addRunTaskOptions(command, { modeDefault: "each task's first mode", concurrency: 'episodes in flight (default 4)' })
    .option('--resume <run>', "finish a stored run ('latest' for the newest): rerun its missing and infrastructure-error episodes", parseText)
    .option('--base-url <url>', 'the endpoint of the --model (required for openai-compatible/, or to override a provider)', parseHttpUrl)
    .option('--temperature <t>', 'sampling temperature', parseTemperature)
    .option('--max-output-tokens <n>', 'output token cap per model call', parsePositiveInteger);
  addExecutionOptions(command, 'the whole run')
    .option('--strict-tools', 'send tools with strict argument decoding where the provider has it (OpenAI `strict: true`, as FuncBenchGen does)')
    .option('--phrasing-model <ref>', 'a model that rewrites task text: generated tasks with --set phrasing=model, and --transform perturb:paraphrase', parseText)
    .option('--phrasing-base-url <url>', 'the endpoint of the --phrasing-model (the --base-url is only for --model)', parseHttpUrl)
    .option('--allow-missing', 'replay: score tasks the file has no output for as failures (default: refuse to start, naming them)')
    .option('--fail-under <rate>', 'exit with code 4 when the pass rate is below this (0.8 or 80%), for CI', parseRate)
    .option('--fail-under-lower', "with --fail-under: compare the 95% interval's lower bound instead of the pass rate")
    .option('--task-id <pattern>', "run only tasks whose id matches (repeatable; '*' and '?' globs)", collectValues)
    .option('--limit <n>', 'run at most this many of the tasks (after --task-id)', parsePositiveInteger)
    .option('--rerun-failed <run>', "run again the tasks a stored run did not pass in every trial (its tasks, suite and knobs; 'latest' for the newest)", parseText)
    .addOption(new Option('--cache [policy]', "answer repeated model requests from a response cache: 'deterministic' (temperature 0 only, the default) or 'all'")
      .choices(['deterministic', 'all']).preset('deterministic'))
    .option('--cache-db <file>', 'the response cache file (default: response-cache.db beside the results database)', parseText)
    .option('--transform <id[:k=v,...]>', 'derive every task with a transform, repeatable, in order (recorded in provenance and each task\'s origin)', collectTransform)
    .option('--baseline', 'with --transform: also run the untransformed tasks first (a linked baseline run) and print the paired report (flips, McNemar)')
    .option('--keep-raw', 'store every model call\'s raw vendor request and response with its episode')
    .option('--config <file>', 'run an eval set: models x suites x knob grids x modes x transforms from a JSON/YAML file, as one group; the same file again continues it', parseText)
    .option('--agent-command <cmd>', 'evaluate an external agent instead of --model: run this shell command per episode, with TOOLFORGE_MCP_URL (an MCP endpoint serving the episode) in its environment and the request on stdin (model mcp/<name>: see --agent-name)', parseText)
    .option('--agent-name <name>', "the --agent-command's model is mcp/<name> (default: the command's script or program, e.g. solver.py for 'python solver.py')", parseModelName)
    .option('--workers-only', "record the run and queue its episodes without running them: 'toolforge worker --run <id>' processes (any number, any machine sharing the --db) run them")
    .option('--json', 'print one JSON summary object on stdout and nothing else')
    .action(async (suiteId: string | undefined, flags: RunFlags) => {
      const cliArgs = recordedArguments(argv);
      checkFlagsNeedingOthers(flags);
      if (flags.config !== undefined) {
        outcome.exitCode = await runConfig(suiteId, flags, io, cliArgs);
        return;
      }
      const cache = openCache(flags, io);
      let summary: RunResult;
      try {
        summary = flags.resume
          ? await resume(suiteId, flags.resume, flags, io, cliArgs, cache?.option)
          : await startRun(suiteId, flags, io, cliArgs, cache?.option);
      } finally {
        cache?.store.close();
      }
      if (flags.workersOnly) {
        printQueuedRun(summary, flags, io);
        return;
      }
      if (cache) {
        const { hits, misses, uncacheable } = cache.option.counters;
        io.stderr(`response cache ${cache.store.path}: ${hits} requests answered from the cache, ${misses} sent and stored${uncacheable > 0 ? `, ${uncacheable} sent uncached (temperature is not 0; --cache all caches them too)` : ''}\n`);
      }
      printSummary(summary, flags, io);
      outcome.exitCode = runExitCode(summary, flags, io);
    });
}

/** `run --config <file>`: an eval set, reported side by side (models x suites) when it ends. */
async function runConfig(suiteId: string | undefined, flags: RunFlags, io: CliIo, cliArgs: string[]): Promise<number> {
  const clashing = (['model', 'agentCommand', 'agentName', 'tasks', 'seed', 'count', 'set', 'mode', 'trials', 'resume', 'rerunFailed', 'transform', 'taskId', 'limit', 'baseUrl', 'temperature', 'maxOutputTokens', 'strictTools', 'phrasingModel', 'workersOnly'] as const)
    .filter((name) => flags[name] !== undefined);
  if (suiteId !== undefined || clashing.length > 0) {
    const names = [...(suiteId !== undefined ? [`the suite '${suiteId}'`] : []), ...clashing.map((name) => flagName(name))].join(', ');
    throw new ConfigError('config.invalid', `--config names the suites, models and settings itself; ${names} cannot be combined with it`, {
      fix: `put them in the eval set file, or drop --config`,
    });
  }
  const path = resolve(io.cwd, flags.config as string);
  const { evalSet } = readEvalSetFile(path);
  const store = openStoreForRuns(resolveDatabasePath(flags.db, io.cwd));
  const progress = createProgressDisplay(io);
  const interrupt = listenForInterrupt();
  // The cell under way, so a failure that stops the set (a full disk) says how to continue it.
  let current: { index: number; cells: number } | undefined;
  try {
    const result = await runEvalSet({
      evalSet, name: basename(path, extname(path)), directory: dirname(path), store, env: io.env, signal: interrupt.signal, concurrency: flags.concurrency, cliArgs,
      onProgress: progress.listener, ...executionFlags(flags),
      // A suite listed in two entries: its fixed knobs and count tell the entries' runs apart.
      onCell: ({ cell, index, cells, action }) => {
        if (action !== 'done') current = { index, cells };
        io.stderr(`${index}/${cells} ${action === 'done' ? 'done already' : action === 'resume' ? 'resuming' : 'running'}: ${cell.suite} ${cell.model}${cell.modelSettings ? ` (${cell.modelSettings})` : ''}${Object.entries({ ...cell.set, ...(cell.count !== undefined ? { count: cell.count } : {}), ...cell.point }).map(([name, value]) => ` ${name}=${value}`).join('')}${cell.mode ? ` mode=${cell.mode}` : ''}${cell.transforms.length > 0 ? ` transform=${cell.transforms.join('+')}` : ''}\n`);
      },
    });
    progress.stop();
    for (const skipped of result.skipped) io.stderr(`skipped ${skipped.cell.suite}${Object.entries(skipped.cell.point).map(([name, value]) => ` ${name}=${value}`).join('')}: ${skipped.reason}\n`);
    const runIds = result.runs.map((run) => run.runId);
    io.stderr(`eval set ${result.group}: ${runIds.length} runs${result.cancelled ? ' (interrupted: run the same --config again to continue)' : ''}; report it again with: toolforge report --sweep ${shellArgument(result.group)}${databaseFlag(flags)}\n`);
    if (runIds.length > 0) io.stdout(renderStoredReport(store, runIds, flags.json ? 'json' : 'table', { runDetails: false }));
    if (result.cancelled) return runExitCodes.interrupted;
    return reportGroupOutcome(store, runIds, {
      finish: () => `toolforge run --config ${shellArgument(flags.config as string)}${databaseFlag(flags)} (the same file continues the eval set)`,
      gate: { failUnder: flags.failUnder, failUnderLower: flags.failUnderLower }, databaseFlag: databaseFlag(flags),
    }, io);
  } catch (error) {
    progress.stop();
    if (current !== undefined && resumable(error)) {
      io.stderr(`eval set stopped at cell ${current.index}/${current.cells}; its finished runs are stored. After fixing the error below, continue it with: toolforge run --config ${shellArgument(flags.config as string)}${databaseFlag(flags)} (finished cells are kept, the stopped one is resumed)\n`);
    }
    throw error;
  } finally {
    interrupt.dispose();
    progress.stop();
    store.close();
  }
}

type CacheOption = { storage: ResponseCacheStore; policy: ResponseCachePolicy; counters: ResponseCacheCounters };

function openCache(flags: RunFlags, io: CliIo): { store: ResponseCacheStore; option: CacheOption } | undefined {
  if (flags.cache === undefined) {
    if (flags.cacheDb !== undefined) throw new ConfigError('config.invalid', '--cache-db names the response cache, but --cache is not given', { fix: 'add --cache, or drop --cache-db' });
    return undefined;
  }
  const path = flags.cacheDb ? resolve(io.cwd, flags.cacheDb) : responseCachePathFor(resolveDatabasePath(flags.db, io.cwd));
  const store = openResponseCache(path);
  return { store, option: { storage: store, policy: flags.cache, counters: { hits: 0, misses: 0, uncacheable: 0 } } };
}

/** ` --db <file|url>` as a printed command repeats it (a URL's password masked), or '' for the default. */
export function databaseFlag(flags: { db?: string }): string {
  return flags.db ? ` --db ${shellArgument(redactUrlPasswords(flags.db))}` : '';
}

/** The command that continues a run: an external agent's run needs its agent command again. */
function resumeCommand(runId: string, flags: Pick<RunFlags, 'db' | 'agentCommand'>): string {
  const agent = flags.agentCommand === undefined ? '' : ` --agent-command ${shellArgument(flags.agentCommand)}`;
  return `toolforge run --resume ${runId}${agent}${databaseFlag(flags)}`;
}

/** `run --workers-only`: what was queued, and the command that runs it. */
function printQueuedRun(summary: RunSummary, flags: RunFlags, io: CliIo): void {
  const database = databaseFlag(flags);
  if (flags.json) {
    io.stdout(`${JSON.stringify({ runId: summary.runId, queuedEpisodes: summary.missingEpisodes, status: 'queued' })}\n`);
    return;
  }
  io.stdout(`run ${summary.runId} queued ${summary.missingEpisodes} episodes; run them with (on any number of machines sharing the database):\n`
    + `  toolforge worker --run ${summary.runId}${database}\n`);
}

/** A run's summary; with --baseline, the linked baseline run and the paired report too. */
type RunResult = RunSummary & { baselineRunId?: string; paired?: TransformPairs };

async function startRun(suiteIdArgument: string | undefined, flags: RunFlags, io: CliIo, cliArgs: string[], responseCache?: CacheOption): Promise<RunResult> {
  const rerun = flags.rerunFailed === undefined ? undefined : readFailedTasks(flags.rerunFailed, suiteIdArgument, flags, io);
  // A tasks file names its suite in every task: the first one's is the run's (the rest are checked against it).
  const suiteId = suiteIdArgument ?? rerun?.suiteId ?? (flags.tasks === undefined ? undefined : tasksFileSuite(resolve(io.cwd, flags.tasks)));
  if (!suiteId) {
    throw new ConfigError('config.invalid', 'no suite given', {
      fix: "name one: 'toolforge run funcgen --model builtin/planner' (see 'toolforge suites'), run a tasks file with --tasks <file>, or continue a run with 'toolforge run --resume <run>'",
    });
  }
  const suite = getSuite(suiteId);
  const agent = agentOf(flags, io);
  if (agent && flags.model) throw new ConfigError('config.invalid', '--agent-command is the agent under test, so --model has nothing to do', { fix: 'drop --model or --agent-command' });
  if (!flags.model && !agent) {
    throw new ConfigError('config.invalid', 'no model given', {
      fix: `pass --model <ref>, e.g. --model builtin/planner (no API key needed) or --model openai/gpt-4.1 (reads OPENAI_API_KEY)`,
    });
  }
  // Before generating: a wrong mode should not wait for the tasks.
  checkSuiteMode(suite, flags.mode);
  if (!agent && flags.model) checkModel(suite, flags.model, flags, io);
  if (agent && (flags.baseUrl !== undefined || flags.allowMissing)) {
    const flag = flags.baseUrl !== undefined ? '--base-url' : '--allow-missing';
    throw new ConfigError('config.invalid', `--agent-command runs its own agent, so ${flag} has nothing to change`, { fix: `drop ${flag}` });
  }
  const seed = flags.seed ?? rerun?.seed ?? 0;
  const transforms = (flags.transform ?? []).map(parseTransformRequest);
  checkTransformChain(transforms);
  if (flags.baseline && transforms.length === 0) {
    throw new ConfigError('config.invalid', '--baseline runs the tasks with and without the --transform, but no --transform is given', { fix: 'add --transform <id>, e.g. --transform drift:op=all, or drop --baseline' });
  }
  // With --baseline the untransformed tasks run first, as their own run; the transformed run pairs with it.
  const sources = flags.baseline ? transforms : [];
  const derive = flags.baseline ? [] : transforms;
  let tasks: TaskSource;
  let params: JsonObject;
  let taskRecipe: TaskRecipe | undefined;
  let tasksFile: TasksFileReading | undefined;
  // perturb:paraphrase asks the --phrasing-model, also of tasks read from a file.
  const paraphrasing = transforms.some(({ transform, knobs }) => transform.needsPhrasingModel?.(knobs) === true);
  if (flags.tasks || rerun) {
    if (flags.count !== undefined || flags.set !== undefined || (flags.phrasingModel !== undefined && !paraphrasing)) {
      throw new ConfigError('config.invalid', '--tasks reads fixed tasks, so --count, --set and --phrasing-model have nothing to change', {
        fix: 'drop --count/--set/--phrasing-model to run the file as it is, or drop --tasks to generate new tasks',
      });
    }
    // The seed makes tasks and seeds transforms; tasks read from a file carry their own seeds.
    if (flags.tasks && flags.seed !== undefined && transforms.length === 0) {
      throw new ConfigError('config.invalid', '--tasks reads fixed tasks (each carries the seed it was made with), so --seed has nothing to change', {
        fix: 'drop --seed to run the file as it is; --seed seeds a --transform of the file, or drop --tasks to generate new tasks from the seed',
      });
    }
    if (flags.phrasingBaseUrl !== undefined && !paraphrasing) {
      throw new ConfigError('config.invalid', '--tasks reads fixed tasks, so --phrasing-base-url has nothing to change', { fix: 'drop --phrasing-base-url' });
    }
  }
  // The store is opened (and checked) before any task is generated: a bad --db fails in a second, not after minutes.
  const store = openStoreForRuns(resolveDatabasePath(flags.db, io.cwd));
  // One retry wait budget (--max-retry-wait) for every model this command calls: the tested one, the phrasing model
  // and the suite's helpers.
  const execution = executionFlags(flags);
  const waitBudget = createRetryWaitBudget({ ...defaultRequestRetryPolicy, ...execution.retry });
  const phrasingModel = createPhrasingModel(flags.phrasingModel, flags.phrasingBaseUrl, io, execution.retry, waitBudget);
  // Every answer of the phrasing model is kept (paraphrases, the suite's own phrasing): a rerun asks it nothing again.
  const paraphraseCache = phrasingModel ? openParaphraseCache(resolveDatabasePath(flags.db, io.cwd), io.cwd) : undefined;
  let progress = createProgressDisplay(io);
  const interrupt = listenForInterrupt();
  let startedRunId: string | undefined;
  try {
    const resources: TransformResources = {
      ...(phrasingModel ? { phrasingModel } : {}), ...(paraphraseCache ? { paraphraseCache } : {}), signal: interrupt.signal,
    };
    // Tasks stream from the file or the generator through selection and transforms into the run's store, a batch at
    // a time: a run of 100,000 tasks never holds them all.
    if (rerun) {
      tasks = transformStream(rerun.tasks, derive, seed, resources);
      params = rerun.params;
    } else if (flags.tasks) {
      const path = resolve(io.cwd, flags.tasks);
      const lines = new Map<string, number>();
      const fileTasks = streamTasksFile(path, { suiteId: suite.id, lines, check: (task) => checkExpected(suite, task) });
      const first = fileTasks.next();
      if (first.done) throw emptyTasksFile(path);
      params = first.value.params as JsonObject;
      tasks = transformStream(prependTask(first.value, fileTasks), derive, seed, resources);
      if (flags.validate) tasks = validateTaskStream(suite, tasks, { source: flags.tasks, signal: interrupt.signal, lineOf: (taskId) => lines.get(taskId) });
      // The file's tasks unchanged: a run stopped while storing them is resumed from the same file, read the same way.
      if (derive.length === 0) tasksFile = { path, validate: flags.validate, selection: { taskIds: flags.taskId, limit: flags.limit } };
    } else {
      params = resolveKnobs(suite.id, suite.knobs, flags.set ?? {}, { directory: io.cwd });
      tasks = streamGeneratedTasks(suite, { seed, count: flags.count, params, phrasingModel, transforms: derive, signal: interrupt.signal, ...(paraphraseCache ? { paraphraseCache } : {}) });
      // The suite's own tasks, derived by transforms that need only the seed: the run may import them on a worker thread
      // while its episodes run, and a run stopped while storing them is resumed from the recipe. A phrasing model's
      // answers (--set phrasing=model, perturb:paraphrase) are not a recipe's to make again.
      // (Without --phrasing-model, perturb:paraphrase then fails at its first task, saying to pass one.)
      if (phrasingModel === undefined && sources.length === 0 && !paraphrasing) {
        taskRecipe = {
          seed, ...(flags.count === undefined ? {} : { count: flags.count }), params, selection: { taskIds: flags.taskId, limit: flags.limit },
          ...(derive.length > 0 ? { transforms: flags.transform ?? [] } : {}),
        };
      }
    }
    tasks = selectTaskStream(tasks, { taskIds: flags.taskId, limit: flags.limit });
    const modelRef = agent?.ref ?? flags.model ?? '';
    const runTasks = async (selected: TaskSource): Promise<RunSummary> => runEvaluation({
      suite, tasks: selected, modelRef, ...(agent ? { agent } : {}), baseUrl: flags.baseUrl, mode: flags.mode, trials: flags.trials,
      concurrency: flags.concurrency, store, settings: settingsOf(flags), allowMissingOutputs: flags.allowMissing, responseCache, ...(taskRecipe ? { taskRecipe } : {}), ...(tasksFile ? { tasksFile } : {}),
      // With --tasks the tasks themselves are stored with the run; the seed is recorded as given.
      seed, params, cliArgs, signal: interrupt.signal, env: io.env, keepRaw: flags.keepRaw ?? false, workersOnly: flags.workersOnly ?? false, ...execution, waitBudget,
      onProgress: (event) => {
        if (event.type === 'run-recorded' || event.type === 'run-start') startedRunId = event.runId;
        progress.listener(event);
      },
    });
    if (sources.length === 0) return await runTasks(tasks);
    if (flags.workersOnly) throw new ConfigError('config.invalid', '--baseline pairs two runs as they end, so it cannot be planned for workers', { fix: 'run the baseline and the transformed tasks as two --workers-only runs, or drop --workers-only' });
    const baseline = await runTasks(tasks);
    if (baseline.status === 'cancelled') return baseline;
    progress = createProgressDisplay(io);
    // The transformed run derives each task from the baseline run's stored tasks, read back a page at a time.
    const treated = await runTasks(transformStream(store.iterateTasks(baseline.runId), sources, seed, resources));
    return { ...treated, baselineRunId: baseline.runId, paired: pairTransformRuns(store, baseline.runId, treated.runId) };
  } catch (error) {
    progress.stop();
    // A run refused once its tasks were imported (a bad data file, missing replay outputs) was deleted: nothing to continue.
    if (startedRunId && resumable(error) && runKept(store, startedRunId, error)) explainStoppedRun(store, startedRunId, flags, io);
    throw error;
  } finally {
    interrupt.dispose();
    progress.stop();
    store.close();
  }
}

function* prependTask(first: Task, rest: Iterator<Task>): Generator<Task> {
  yield first;
  for (let step = rest.next(); !step.done; step = rest.next()) yield step.value;
}

/** `--rerun-failed <run>`: the stored run's failed tasks, with the suite, seed and knobs they were made with. */
function readFailedTasks(runReference: string, suiteId: string | undefined, flags: RunFlags, io: CliIo): { suiteId: string; seed: number; params: JsonObject; tasks: Task[] } {
  const clashing = (['tasks', 'count', 'set', 'seed', 'phrasingModel'] as const).filter((name) => flags[name] !== undefined);
  if (clashing.length > 0) {
    const names = clashing.map((name) => flagName(name)).join(', ');
    throw new ConfigError('config.invalid', `--rerun-failed runs the stored tasks of run '${runReference}'; ${names} cannot change them`, { fix: `drop ${names}` });
  }
  const store = openExistingStore(resolveDatabasePath(flags.db, io.cwd));
  try {
    const run = store.getRun(resolveRunId(store, runReference));
    if (suiteId !== undefined && suiteId !== run.suite.id) {
      throw new ConfigError('config.invalid', `run '${run.id}' is a ${run.suite.id} run, not ${suiteId}`, { fix: `use 'toolforge run --rerun-failed ${run.id} --model <ref>${databaseFlag(flags)}'` });
    }
    const tasks = failedTasksOf(store, run.id);
    if (tasks.length === 0) {
      throw new ConfigError('config.invalid', `run '${run.id}' passed every task in every trial: there is nothing to rerun`, { fix: 'pick a run with failures (toolforge runs shows pass rates)' });
    }
    return { suiteId: run.suite.id, seed: run.seed, params: run.params, tasks };
  } finally {
    store.close();
  }
}

async function resume(suiteId: string | undefined, runReference: string, flags: RunFlags, io: CliIo, cliArgs: string[], responseCache?: CacheOption): Promise<RunSummary> {
  const fixed = (['model', 'seed', 'count', 'set', 'mode', 'trials', 'temperature', 'maxOutputTokens', 'strictTools', 'phrasingModel', 'phrasingBaseUrl', 'allowMissing', 'limit', 'taskId', 'rerunFailed', 'transform', 'baseline', 'keepRaw', 'workersOnly'] as const)
    .filter((name) => flags[name] !== undefined);
  if (fixed.length > 0) {
    const names = fixed.map((name) => flagName(name)).join(', ');
    throw new ConfigError('config.invalid', `--resume continues run '${runReference}' with its own model, tasks and settings; ${names} cannot change them`, {
      fix: `drop ${names}, or start a new run without --resume`,
    });
  }
  const dbPath = resolveDatabasePath(flags.db, io.cwd);
  const { runId, model } = await withStore(openExistingStore(dbPath), (store) => {
    const run = store.getRun(resolveRunId(store, runReference));
    if (suiteId !== undefined && suiteId !== run.suite.id) {
      throw new ConfigError('config.invalid', `run '${run.id}' is a ${run.suite.id} run, not ${suiteId}`, {
        fix: `use 'toolforge run --resume ${run.id}${databaseFlag(flags)}' (or 'toolforge run ${run.suite.id} --resume ${run.id}${databaseFlag(flags)}')`,
      });
    }
    return { runId: run.id, model: run.model };
  });
  const agent = agentOf(flags, io, model);
  const progress = createProgressDisplay(io);
  const interrupt = listenForInterrupt();
  let hasStarted = false;
  try {
    return await resumeEvaluation({
      runId, dbPath, ...(agent ? { agent } : {}), ...(flags.tasks === undefined ? {} : { tasksFile: resolve(io.cwd, flags.tasks) }), baseUrl: flags.baseUrl, concurrency: flags.concurrency, signal: interrupt.signal, env: io.env, cliArgs, responseCache, ...executionFlags(flags),
      onProgress: (event) => {
        if (event.type === 'run-start') hasStarted = true;
        progress.listener(event);
      },
    });
  } catch (error) {
    progress.stop();
    if (hasStarted && resumable(error)) explainStoppedRun(undefined, runId, flags, io);
    throw error;
  } finally {
    interrupt.dispose();
    progress.stop();
  }
}

/**
 * The first Ctrl-C (or SIGTERM) stops the run cleanly (finished episodes are kept, the run is marked cancelled and can
 * be resumed); a second one ends the process at once (Node's default, restored after the first).
 */
export function listenForInterrupt(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const dispose = onStopSignal(() => controller.abort(new Error('interrupted')));
  return { signal: controller.signal, dispose };
}

/**
 * 0 for a run that scored episodes and met --fail-under; otherwise a code that says what happened, so CI never
 * takes a run that scored nothing (every episode an infrastructure error) for a result.
 */
function runExitCode(summary: RunSummary, flags: RunFlags, io: CliIo): number {
  if (summary.status === 'cancelled') return runExitCodes.interrupted; // the shell's code for a Ctrl-C
  if (summary.episodes === 0) {
    io.stderr(`no episode scored: ${summary.infrastructureErrors} infrastructure errors, ${summary.missingEpisodes} episodes not run; there is no pass rate to report (exit code ${runExitCodes.nothingScored})\n`);
    return runExitCodes.nothingScored;
  }
  if (flags.failUnder !== undefined) {
    const measured = flags.failUnderLower ? summary.passRateCI95[0] : summary.passRate;
    const what = flags.failUnderLower ? "the pass rate's 95% lower bound" : 'the pass rate';
    if (measured < flags.failUnder) {
      io.stderr(`--fail-under: ${what} ${formatPercent(measured)} is below ${formatPercent(flags.failUnder)} (exit code ${runExitCodes.belowThreshold})\n`);
      return runExitCodes.belowThreshold;
    }
  }
  return 0;
}

/** `--agent-command`: an external agent process per episode, driven over MCP (src/mcp/agent-command.ts). */
function agentOf(flags: RunFlags, io: CliIo, resumedModel?: string): AgentSource | undefined {
  if (flags.agentCommand === undefined) {
    if (flags.agentName !== undefined) {
      throw new ConfigError('config.invalid', "--agent-name names the --agent-command's model, but no --agent-command is given", { fix: 'add --agent-command <cmd>, or drop --agent-name' });
    }
    return undefined;
  }
  // A resumed run keeps its model: its agent is named after it, whatever the command's words.
  const name = flags.agentName ?? (resumedModel?.startsWith('mcp/') ? resumedModel.slice('mcp/'.length) : agentCommandName(flags.agentCommand));
  return createAgentCommandSource({ command: flags.agentCommand, name: modelName(name), env: io.env, cwd: io.cwd });
}

/** A flag that only means something beside another one is refused without it, rather than ignored. */
function checkFlagsNeedingOthers(flags: RunFlags): void {
  checkValidateFlag(flags);
  if (flags.failUnderLower && flags.failUnder === undefined) {
    throw new ConfigError('config.invalid', '--fail-under-lower compares the pass rate\'s 95% lower bound with --fail-under, which is not given', {
      fix: 'add --fail-under <rate> (e.g. --fail-under 0.8), or drop --fail-under-lower',
    });
  }
  if (flags.phrasingBaseUrl !== undefined && flags.phrasingModel === undefined) {
    throw new ConfigError('config.invalid', '--phrasing-base-url is the endpoint of the --phrasing-model, which is not given', {
      fix: 'add --phrasing-model <ref>, or drop --phrasing-base-url',
    });
  }
}

/**
 * Fails on a bad model reference or a missing API key before any task is generated; and on flags that only a
 * provider's model (--base-url) or a replay model (--allow-missing) uses, given with another.
 */
function checkModel(suite: Suite, ref: string, flags: Pick<RunFlags, 'baseUrl' | 'allowMissing' | 'temperature' | 'maxOutputTokens' | 'strictTools'>, io: CliIo): void {
  const { provider } = parseModelReference(ref);
  // A built-in model answers from the task: a setting would be recorded with the run and change nothing.
  const setting = (['temperature', 'maxOutputTokens', 'strictTools'] as const).find((name) => flags[name] !== undefined);
  if (provider === 'builtin' && setting !== undefined) {
    throw new ConfigError('config.invalid', `${flagName(setting)}: ${ref} is a built-in model: built-in models are deterministic and take no generation settings`, {
      fix: `drop ${flagName(setting)}, or pass a provider model, e.g. --model openai-compatible/<model> --base-url <url>`,
    });
  }
  if (flags.baseUrl !== undefined && (provider === 'builtin' || provider === 'replay')) {
    throw new ConfigError('config.invalid', `--base-url is the endpoint of a provider's model; ${ref} ${provider === 'builtin' ? 'runs in this process' : 'reads stored outputs'} and calls none`, {
      fix: 'drop --base-url, or pass a provider model, e.g. --model openai-compatible/<model> --base-url <url>',
    });
  }
  if (flags.allowMissing && provider !== 'replay') {
    throw new ConfigError('config.invalid', `--allow-missing scores the tasks a replay file has no output for; ${ref} is not a replay model`, {
      fix: 'drop --allow-missing, or pass --model replay/<outputs.jsonl>',
    });
  }
  if (provider === 'builtin') resolveModelSource(suite, ref);
  else createModelSource(ref, { baseUrl: flags.baseUrl, env: io.env });
}

/** Infrastructure errors are not scored, but the user needs their causes (a bad key, a down server) to fix them. */
function reportInfrastructureErrors(runId: string, flags: RunFlags, io: CliIo): void {
  const store = openExistingStore(resolveDatabasePath(flags.db, io.cwd));
  let causes: InfrastructureCause[];
  try {
    causes = infrastructureCauses(store, runId);
  } finally {
    store.close();
  }
  const lines = causes.slice(0, 3).map(({ text, count, varied }) => `  ${count} x ${varied ? 'e.g. ' : ''}${text.replaceAll('\n', '\n    ')}`);
  if (causes.length > 3) lines.push(`  ... and ${causes.length - 3} other causes (see 'toolforge report ${runId} --format csv${databaseFlag(flags)}')`);
  io.stderr(`infrastructure errors (not scored, rerun by --resume):\n${lines.join('\n')}\n`);
}

/** A run that stopped on an error keeps its finished episodes: say how to continue it. */
/**
 * Whether the run an error stopped is still stored: a refused one was deleted. A store that failed (a full disk, a
 * PostgreSQL server gone) kept it, and may not answer the question now.
 */
export function runKept(store: Pick<ResultsStore, 'findRun'>, runId: string, error: unknown): boolean {
  return isStoreWriteFailure(error) || store.findRun(runId) !== undefined;
}

/**
 * Whether a run stopped by `error` can be continued: not when its database was lost under it or holds a damaged row
 * (store.invalid), whose own fix says what to do instead.
 */
export function resumable(error: unknown): boolean {
  return !(error instanceof ConfigError && error.code === 'store.invalid');
}

/** `store` is the run's, when this process holds it (a resume opens its own: what it resumed can be continued). */
function explainStoppedRun(store: StoppedRunStore | undefined, runId: string, flags: RunFlags, io: CliIo): void {
  io.stderr(`${stoppedRunText(store, runId, resumeCommand(runId, flags), databaseFlag(flags))}\n`);
}

type StoppedRunStore = Pick<ResultsStore, 'findRun' | 'hasAllTasks'>;

/**
 * What a command says of a run an error stopped (printed above the error): what is kept, and what continues it. A run
 * stopped while storing tasks nothing can make again (a phrasing model's, tasks derived from a file or from another
 * run) is started again instead, as `runs` and a refused --resume say. The store may just have failed: when it cannot
 * tell, the continue line stands, and --resume says the rest.
 */
export function stoppedRunText(store: StoppedRunStore | undefined, runId: string, continueWith: string, database: string): string {
  const run = store === undefined ? undefined : answerOrUndefined(() => store.findRun(runId));
  if (run !== undefined && store !== undefined && answerOrUndefined(() => cannotStoreRestOfTasks(store, run)) === true) {
    return `run ${runId} stopped while its tasks were being stored, and nothing can make the rest of them again, so it cannot be continued. After fixing the error below, ${startAgainFix(run, database)}`;
  }
  return `run ${runId} stopped; its finished episodes are stored. After fixing the error below, continue it with: ${continueWith}`;
}

function answerOrUndefined<T>(ask: () => T): T | undefined {
  try {
    return ask();
  } catch {
    return undefined;
  }
}

/** The flags for how requests are retried and episodes timed (run, worker). */
export function addExecutionOptions(command: Command, waitScope: string): Command {
  return addRequestRetryOptions(command, waitScope)
    .option('--episode-timeout <ms>', "each episode's time limit, overriding the tasks' (time waiting on a failing provider is not counted)", parseMilliseconds)
    .option('--stop-after-errors <n>', 'stop once n episodes in a row end in infrastructure errors, to --resume when fixed (default: 20 or twice --concurrency, whichever is more; 0: never)', parseNonNegativeInteger);
}

/** The flags for how model requests are retried (run, worker, and rescore for a scorer's own model). */
export function addRequestRetryOptions(command: Command, waitScope: string): Command {
  return command
    .option('--max-retries <n>', 'retries per model request on 429, 408, 5xx, timeouts, dropped connections, invalid bodies (default 6)', parseNonNegativeInteger)
    .option('--max-retry-wait <ms>', `time ${waitScope} may lose to retried requests, failed attempts included (default 1800000)`, parseMillisecondsBudget)
    .option('--request-timeout <ms>', 'timeout of each model request; a timed-out request is retried, never scored (default 120000)', parseMilliseconds);
}

/** How requests are retried and episodes timed: may differ between a run and its resumption. */
export function executionFlags(flags: Pick<RunFlags, 'maxRetries' | 'maxRetryWait' | 'requestTimeout' | 'episodeTimeout' | 'stopAfterErrors' | 'db'>): Pick<RunOptions, 'retry' | 'episodeTimeoutMs' | 'stopAfterInfrastructureErrors' | 'databaseFlag'> {
  const retry: RunOptions['retry'] = {};
  if (flags.maxRetries !== undefined) retry.maxRetries = flags.maxRetries;
  if (flags.maxRetryWait !== undefined) retry.maxTotalWaitMs = flags.maxRetryWait;
  if (flags.requestTimeout !== undefined) retry.timeoutMs = flags.requestTimeout;
  return {
    retry, databaseFlag: databaseFlag(flags), ...(flags.episodeTimeout !== undefined ? { episodeTimeoutMs: flags.episodeTimeout } : {}),
    ...(flags.stopAfterErrors !== undefined ? { stopAfterInfrastructureErrors: flags.stopAfterErrors } : {}),
  };
}

export function settingsOf(flags: Pick<RunFlags, 'temperature' | 'maxOutputTokens' | 'strictTools'>): GenerationSettings {
  const settings: GenerationSettings = {};
  if (flags.temperature !== undefined) settings.temperature = flags.temperature;
  if (flags.maxOutputTokens !== undefined) settings.maxOutputTokens = flags.maxOutputTokens;
  if (flags.strictTools) settings.strictTools = true;
  return settings;
}

/** What a run that did not finish left, and the command that finishes it (empty for a finished run). */
function unfinishedRunText(summary: RunResult, flags: RunFlags): string {
  const database = databaseFlag(flags);
  const unfinished = summary.infrastructureErrors + summary.missingEpisodes;
  return [
    summary.status === 'cancelled' ? 'interrupted: finished episodes are stored.\n' : '',
    summary.tasksIncomplete === 'start-again' ? `it stopped while its tasks were still being stored, so it cannot be continued: start it again with the same command (and delete this one with 'toolforge delete ${summary.runId}${database}')\n`
      : summary.tasksIncomplete === 'resumable' ? `it stopped while its tasks were still being stored (${summary.tasks} so far); store the rest and run the missing episodes with: ${resumeCommand(summary.runId, flags)}\n`
      : unfinished > 0 ? `${unfinished} episodes not scored; finish them with: ${resumeCommand(summary.runId, flags)}\n` : '',
  ].join('');
}

function printSummary(summary: RunResult, flags: RunFlags, io: CliIo): void {
  if (summary.infrastructureErrors > 0) reportInfrastructureErrors(summary.runId, flags, io);
  const database = databaseFlag(flags);
  const unfinished = summary.infrastructureErrors + summary.missingEpisodes;
  if (flags.json) {
    const paired = summary.paired ? { baselineRunId: summary.baselineRunId, paired: summary.paired } : {};
    // A script reads whether the run ended and what is left; stdout holds the JSON alone, so how to finish goes to stderr.
    const ending = { status: summary.status, missingEpisodes: summary.missingEpisodes, ...(summary.tasksIncomplete ? { tasksIncomplete: summary.tasksIncomplete } : {}) };
    io.stdout(`${JSON.stringify({ ...summaryObject(summary), ...ending, ...paired })}\n`);
    if (summary.status === 'cancelled' || unfinished > 0) io.stderr(unfinishedRunText(summary, flags));
    return;
  }
  io.stdout([
    renderRunTable(summary),
    summary.paired ? `\n${titledTransformPairs([summary.paired])}\n` : '',
    unfinishedRunText(summary, flags),
    `\nstored in ${redactUrlPasswords(resolveDatabasePath(flags.db, io.cwd))}; full report: toolforge report ${summary.runId} --format html --out report.html${database}\n`,
  ].join(''));
}
