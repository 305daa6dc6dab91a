import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { generateTaskJsonl } from '../../runner/parallel-generation.ts';
import { noTasksError } from '../../runner/run-evaluation.ts';
import { resolveKnobs } from '../../suites/knob.ts';
import { getSuite } from '../../suites/registry.ts';
import type { CliIo } from '../cli-io.ts';
import { writeOutputLines } from '../write-output-lines.ts';
import { createPhrasingModel } from '../phrasing-model.ts';
import { collectSetting, collectTransform, parseHttpUrl, parseNonNegativeInteger, parsePositiveInteger } from '../option-parsers.ts';
import { checkTransformChain, parseTransformRequest } from '../../transforms/registry.ts';
import { defaultResultsPath } from '../../store/results-store.ts';
import { openParaphraseCache } from '../paraphrase-cache.ts';
import { addRequestRetryOptions, executionFlags } from './run.ts';
import { Interrupted, onStopSignal } from '../stop-signals.ts';

type GenerateFlags = {
  transform?: string[]; seed: number; count?: number; set?: Record<string, string>; out?: string; validate: boolean; phrasingModel?: string; phrasingBaseUrl?: string; baseUrl?: string;
  maxRetries?: number; maxRetryWait?: number; requestTimeout?: number; threads?: number;
};

export function registerGenerateCommand(program: Command, io: CliIo): void {
  const command = program
    .command('generate')
    .description('generate tasks as JSONL (same suite version, seed and knobs => identical bytes); each is checked solvable by builtin/oracle')
    .argument('<suite>', "suite id (see 'toolforge suites')")
    .option('--seed <n>', 'generation seed', parseNonNegativeInteger, 0)
    .option('--count <n>', "how many tasks (default: the suite's default count)", parsePositiveInteger)
    .option('--set <name=value>', "a suite knob, repeatable (see 'toolforge suites')", collectSetting)
    .option('--transform <id[:k=v,...]>', "derive every task with a transform, repeatable, in order (e.g. rename-tools:style=suffix)", collectTransform)
    .option('--out <file>', 'write to this file instead of stdout (- or no --out: stdout)')
    .option('--no-validate', 'skip the builtin/oracle solvability check')
    .option('--threads <n>', 'threads that make tasks, for suites that make each task from its index (funcgen); same bytes whatever n (default: one per core, at most 4, from 2,048 tasks)', parsePositiveInteger)
    .option('--phrasing-model <ref>', 'a model that rewrites task text, for suites with --set phrasing=model and for --transform perturb:paraphrase')
    .option('--phrasing-base-url <url>', 'the endpoint of the --phrasing-model', parseHttpUrl)
    .option('--base-url <url>', 'the same as --phrasing-base-url (generate calls no other model)', parseHttpUrl);
  addRequestRetryOptions(command, 'the --phrasing-model')
    .action(async (suiteId: string, flags: GenerateFlags) => {
      const suite = getSuite(suiteId);
      // Threads past the cores only cost memory (a suite's copy each): a typo like --threads 200 is refused, not run.
      if (flags.threads !== undefined && flags.threads > availableParallelism()) {
        throw new ConfigError('config.invalid', `--threads ${flags.threads} is more than the ${availableParallelism()} cores this machine has`, {
          fix: `pass --threads ${availableParallelism()} or less (or leave it out: one per core, at most 4)`,
        });
      }
      const params = resolveKnobs(suite.id, suite.knobs, flags.set ?? {}, { directory: io.cwd });
      if (flags.phrasingModel === undefined && (flags.phrasingBaseUrl ?? flags.baseUrl) !== undefined) {
        const flag = flags.phrasingBaseUrl !== undefined ? '--phrasing-base-url' : '--base-url';
        throw new ConfigError('config.invalid', `${flag} is the endpoint of the --phrasing-model, which is not given`, { fix: `add --phrasing-model <ref>, or drop ${flag}` });
      }
      const phrasingModel = createPhrasingModel(flags.phrasingModel, flags.phrasingBaseUrl ?? flags.baseUrl, io, executionFlags(flags).retry);
      const transforms = (flags.transform ?? []).map(parseTransformRequest);
      checkTransformChain(transforms);
      // Paraphrases are kept where run keeps them by default (.toolforge/), so generate and run share them.
      const paraphraseCache = phrasingModel ? openParaphraseCache(defaultResultsPath, io.cwd,
        `generate keeps it in ${dirname(defaultResultsPath)}/ under the folder it runs in: run it from a folder where that can be written`) : undefined;
      // Written as they are made: 100,000 tasks are never held together (nor their JSONL, past V8's longest string).
      // Made on a thread per core when the suite makes its tasks by index (parallel-generation.ts): the same bytes.
      // Ctrl-C or SIGTERM stops the generation threads and leaves no part of the --out file (stdout keeps what it got).
      const stop = new AbortController();
      const stopListening = onStopSignal(() => stop.abort());
      const stopped = flags.out === undefined
        ? 'the tasks written so far stand; generate them all again with the same --seed and --set (the same tasks)'
        : `${flags.out} was not written; generate again with the same --seed and --set (the same tasks)`;
      try {
        const lines = generateTaskJsonl(suite, { seed: flags.seed, count: flags.count, params, validate: flags.validate, phrasingModel, transforms, reuseBytes: true, signal: stop.signal, ...(flags.threads === undefined ? {} : { threads: flags.threads }), ...(paraphraseCache ? { paraphraseCache } : {}) });
        const written = await writeOutputLines(io, flags.out, refusedWhenEmpty(endedByStop(lines, stop.signal, stopped), () => noTasksError(suite, params)));
        if (written.path !== undefined) io.stderr(`wrote ${written.lines} ${suite.id} tasks to ${written.path}\n`);
      } finally {
        stopListening();
      }
    });
}

/** The items, then Interrupted when the stream ended because `signal` stopped it (so no --out file is kept). */
async function* endedByStop<T>(items: AsyncIterable<T>, signal: AbortSignal, stopped: string): AsyncGenerator<T> {
  try {
    for await (const item of items) {
      if (signal.aborted) break;
      yield item;
    }
  } catch (error) {
    // A suite's stream may end by throwing the signal's AbortError: the same stop.
    if (!signal.aborted) throw error;
  }
  if (signal.aborted) throw new Interrupted(stopped);
}

/** No task at all is refused, as `run` refuses it (and no empty --out file is left): an empty data file, say. */
async function* refusedWhenEmpty<T>(items: AsyncIterable<T>, error: () => Error): AsyncGenerator<T> {
  let any = false;
  for await (const item of items) {
    any = true;
    yield item;
  }
  if (!any) throw error();
}
