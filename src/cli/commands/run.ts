import type { Command } from 'commander';
import { Option } from 'commander';
import { resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Mode } from '../../core/mode.ts';
import { modes } from '../../core/mode.ts';
import type { Task } from '../../core/task.ts';
import { createModelSource, parseModelReference } from '../../models/registry.ts';
import type { GenerationSettings } from '../../models/spec.ts';
import { renderRunTable } from '../../report/render-table.ts';
import { summaryObject } from '../../report/run-report.ts';
import { generateTasks } from '../../runner/generate-tasks.ts';
import { readTasksFile } from '../../runner/read-tasks-file.ts';
import { resolveModelSource } from '../../runner/resolve-model-source.ts';
import { checkSuiteMode } from '../../runner/episode-mode.ts';
import { resumeEvaluation, runEvaluation } from '../../runner/run-evaluation.ts';
import type { RunSummary } from '../../runner/summarize-run.ts';
import { resolveKnobs } from '../../suites/knob.ts';
import { getSuite } from '../../suites/registry.ts';
import type { Suite } from '../../suites/spec.ts';
import type { CliIo } from '../cli-io.ts';
import { openExistingStore, withStore } from '../open-store.ts';
import { applyTransforms, parseTransformRequest } from '../../transforms/registry.ts';
import { collectSetting, collectTransform, parseFiniteNumber, parseNonNegativeInteger, parsePositiveInteger, resolveDatabasePath } from '../option-parsers.ts';
import { createPhrasingModel } from '../phrasing-model.ts';
import { createProgressDisplay } from '../progress-display.ts';

type RunFlags = {
  model?: string;
  tasks?: string;
  seed?: number;
  count?: number;
  set?: Record<string, string>;
  mode?: Mode;
  trials?: number;
  concurrency?: number;
  db?: string;
  resume?: string;
  baseUrl?: string;
  temperature?: number;
  maxOutputTokens?: number;
  json?: boolean;
  phrasingModel?: string;
  transform?: string[];
  keepRaw?: boolean;
};

/** Set by an interrupted run so `main` can exit 130 after printing what was kept. */
export type RunOutcome = { exitCode: number };

export function registerRunCommand(program: Command, io: CliIo, argv: readonly string[], outcome: RunOutcome): void {
  program
    .command('run')
    .description('generate (or read) tasks, run a model on them, score and store every episode, print a report')
    .argument('[suite]', "suite id (see 'toolforge suites'); optional with --resume")
    .option('--model <ref>', 'builtin/oracle|random|planner, openai/<m>, anthropic/<m>, google/<m>, openai-compatible/<m>, replay/<file.jsonl>')
    .option('--tasks <file>', "run the tasks in this JSONL file (from 'toolforge generate') instead of generating")
    .option('--seed <n>', 'generation seed (default 0)', parseNonNegativeInteger)
    .option('--count <n>', "how many tasks to generate (default: the suite's default count)", parsePositiveInteger)
    .option('--set <name=value>', "a suite knob, repeatable (see 'toolforge suites')", collectSetting)
    .addOption(new Option('--mode <mode>', "interaction mode (default: each task's first mode)").choices(modes))
    .option('--trials <n>', 'attempts per task (default 1; pass@k for k <= n)', parsePositiveInteger)
    .option('--concurrency <n>', 'episodes in flight (default 4)', parsePositiveInteger)
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .option('--resume <run>', 'finish a stored run: rerun its missing and infrastructure-error episodes')
    .option('--base-url <url>', 'the endpoint for openai-compatible/ models (or to override a provider)')
    .option('--temperature <t>', 'sampling temperature', parseFiniteNumber)
    .option('--max-output-tokens <n>', 'output token cap per model call', parsePositiveInteger)
    .option('--phrasing-model <ref>', 'a model that rewrites generated task text, for suites with --set phrasing=model')
    .option('--transform <id[:k=v,...]>', 'derive every task with a transform, repeatable, in order (recorded in provenance and each task\'s origin)', collectTransform)
    .option('--keep-raw', 'store every model call\'s raw vendor request and response with its episode')
    .option('--json', 'print one JSON summary object on stdout and nothing else')
    .action(async (suiteId: string | undefined, flags: RunFlags) => {
      const cliArgs = [...argv];
      const summary = flags.resume
        ? await resume(suiteId, flags.resume, flags, io)
        : await startRun(suiteId, flags, io, cliArgs);
      printSummary(summary, flags, io);
      if (summary.status === 'cancelled') outcome.exitCode = 130; // the shell's code for a Ctrl-C
    });
}

async function startRun(suiteId: string | undefined, flags: RunFlags, io: CliIo, cliArgs: string[]): Promise<RunSummary> {
  if (!suiteId) {
    throw new ConfigError('config.invalid', 'no suite given', {
      fix: "name one: 'toolforge run funcgen --model builtin/planner' (see 'toolforge suites'), or continue a run with 'toolforge run --resume <run>'",
    });
  }
  const suite = getSuite(suiteId);
  if (!flags.model) {
    throw new ConfigError('config.invalid', 'no model given', {
      fix: `pass --model <ref>, e.g. --model builtin/planner (no API key needed) or --model openai/gpt-4.1 (reads OPENAI_API_KEY)`,
    });
  }
  // Before generating: a wrong mode should not wait for the tasks.
  checkSuiteMode(suite, flags.mode);
  checkModel(suite, flags.model, flags.baseUrl, io);
  const seed = flags.seed ?? 0;
  const transforms = (flags.transform ?? []).map(parseTransformRequest);
  let tasks: Task[];
  let params: JsonObject;
  if (flags.tasks) {
    if (flags.count !== undefined || flags.set !== undefined || flags.phrasingModel !== undefined) {
      throw new ConfigError('config.invalid', '--tasks reads fixed tasks, so --count, --set and --phrasing-model have nothing to change', {
        fix: 'drop --count/--set/--phrasing-model to run the file as it is, or drop --tasks to generate new tasks',
      });
    }
    tasks = applyTransforms(await readTasksFile(resolve(io.cwd, flags.tasks), { suiteId: suite.id }), transforms, seed);
    params = tasks[0].params as JsonObject;
  } else {
    params = resolveKnobs(suite.id, suite.knobs, flags.set ?? {});
    const phrasingModel = createPhrasingModel(flags.phrasingModel, flags.baseUrl, io);
    tasks = await generateTasks(suite, { seed, count: flags.count, params, phrasingModel, transforms });
  }
  const progress = createProgressDisplay(io);
  const interrupt = listenForInterrupt(flags.model);
  let startedRunId: string | undefined;
  try {
    return await runEvaluation({
      suite, tasks, modelRef: flags.model, baseUrl: flags.baseUrl, mode: flags.mode, trials: flags.trials,
      concurrency: flags.concurrency, dbPath: resolveDatabasePath(flags.db, io.cwd), settings: settingsOf(flags),
      // With --tasks the tasks themselves are stored with the run; the seed is recorded as given.
      seed, params, cliArgs, signal: interrupt.signal, env: io.env, keepRaw: flags.keepRaw ?? false,
      onProgress: (event) => {
        if (event.type === 'run-start') startedRunId = event.runId;
        progress.listener(event);
      },
    });
  } catch (error) {
    progress.stop();
    if (startedRunId) explainStoppedRun(startedRunId, flags, io);
    throw error;
  } finally {
    interrupt.dispose();
    progress.stop();
  }
}

async function resume(suiteId: string | undefined, runId: string, flags: RunFlags, io: CliIo): Promise<RunSummary> {
  const fixed = (['model', 'tasks', 'seed', 'count', 'set', 'mode', 'trials', 'temperature', 'maxOutputTokens', 'phrasingModel', 'transform', 'keepRaw'] as const)
    .filter((name) => flags[name] !== undefined);
  if (fixed.length > 0) {
    const names = fixed.map((name) => `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`).join(', ');
    throw new ConfigError('config.invalid', `--resume continues run '${runId}' with its own model, tasks and settings; ${names} cannot change them`, {
      fix: `drop ${names}, or start a new run without --resume`,
    });
  }
  const dbPath = resolveDatabasePath(flags.db, io.cwd);
  const modelRef = await withStore(openExistingStore(dbPath), (store) => {
    const run = store.getRun(runId);
    if (suiteId !== undefined && suiteId !== run.suite.id) {
      throw new ConfigError('config.invalid', `run '${runId}' is a ${run.suite.id} run, not ${suiteId}`, {
        fix: `use 'toolforge run --resume ${runId}' (or 'toolforge run ${run.suite.id} --resume ${runId}')`,
      });
    }
    return run.model;
  });
  const progress = createProgressDisplay(io);
  const interrupt = listenForInterrupt(modelRef);
  let hasStarted = false;
  try {
    return await resumeEvaluation({
      runId, dbPath, baseUrl: flags.baseUrl, concurrency: flags.concurrency, signal: interrupt.signal, env: io.env,
      onProgress: (event) => {
        if (event.type === 'run-start') hasStarted = true;
        progress.listener(event);
      },
    });
  } catch (error) {
    progress.stop();
    if (hasStarted) explainStoppedRun(runId, flags, io);
    throw error;
  } finally {
    interrupt.dispose();
    progress.stop();
  }
}

/**
 * With a network model the first Ctrl-C stops the run cleanly (finished episodes are kept, the run
 * is marked cancelled and can be resumed); a second one ends the process at once. Built-in and
 * replay models never wait on I/O, so a signal handler would not get a turn: there Ctrl-C keeps
 * Node's default (the process ends; committed episodes survive and --resume finishes the run).
 */
function listenForInterrupt(modelRef: string): { signal: AbortSignal | undefined; dispose(): void } {
  const provider = parseModelReference(modelRef).provider;
  if (provider === 'builtin' || provider === 'replay') return { signal: undefined, dispose: () => {} };
  const controller = new AbortController();
  const onInterrupt = (): void => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', onInterrupt) };
}

/** Fails on a bad model reference or a missing API key before any task is generated. */
function checkModel(suite: Suite, ref: string, baseUrl: string | undefined, io: CliIo): void {
  if (parseModelReference(ref).provider === 'builtin') resolveModelSource(suite, ref);
  else createModelSource(ref, { baseUrl, env: io.env });
}

/** Infrastructure errors are not scored, but the user needs their causes (a bad key, a down server) to fix them. */
function reportInfrastructureErrors(runId: string, flags: RunFlags, io: CliIo): void {
  const store = openExistingStore(resolveDatabasePath(flags.db, io.cwd));
  const counts = new Map<string, number>();
  try {
    for (const episode of store.listEpisodes(runId, { status: 'infrastructure-error' })) {
      const text = episode.error ? episode.error.message : 'unknown error';
      counts.set(text, (counts.get(text) ?? 0) + 1);
    }
  } finally {
    store.close();
  }
  const causes = [...counts.entries()].sort((left, right) => right[1] - left[1]);
  const lines = causes.slice(0, 3).map(([text, count]) => `  ${count} x ${text.replaceAll('\n', '\n    ')}`);
  if (causes.length > 3) lines.push(`  ... and ${causes.length - 3} other causes (see 'toolforge report ${runId} --format csv')`);
  io.stderr(`infrastructure errors (not scored, rerun by --resume):\n${lines.join('\n')}\n`);
}

/** A run that stopped on an error keeps its finished episodes: say how to continue it. */
function explainStoppedRun(runId: string, flags: RunFlags, io: CliIo): void {
  const database = flags.db ? ` --db ${flags.db}` : '';
  io.stderr(`run ${runId} stopped; its finished episodes are stored. After fixing the error below, continue it with: toolforge run --resume ${runId}${database}\n`);
}

function settingsOf(flags: RunFlags): GenerationSettings {
  const settings: GenerationSettings = {};
  if (flags.temperature !== undefined) settings.temperature = flags.temperature;
  if (flags.maxOutputTokens !== undefined) settings.maxOutputTokens = flags.maxOutputTokens;
  return settings;
}

function printSummary(summary: RunSummary, flags: RunFlags, io: CliIo): void {
  if (summary.infrastructureErrors > 0) reportInfrastructureErrors(summary.runId, flags, io);
  if (flags.json) {
    io.stdout(`${JSON.stringify(summaryObject(summary))}\n`);
    return;
  }
  const database = flags.db ? ` --db ${flags.db}` : '';
  const unfinished = summary.infrastructureErrors + summary.missingEpisodes;
  io.stdout([
    renderRunTable(summary),
    summary.status === 'cancelled' ? 'interrupted: finished episodes are stored.\n' : '',
    unfinished > 0 ? `${unfinished} episodes not scored; finish them with: toolforge run --resume ${summary.runId}${database}\n` : '',
    `\nstored in ${resolveDatabasePath(flags.db, io.cwd)}; full report: toolforge report ${summary.runId} --format html --out report.html${database}\n`,
  ].join(''));
}
