import { Command, CommanderError } from 'commander';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import { describeSystemError } from '../core/system-error.ts';
import type { CliIo } from './cli-io.ts';
import { OutputClosed, processIo } from './cli-io.ts';
import { registerDeleteCommand } from './commands/delete.ts';
import { registerDataCommand } from './commands/data.ts';
import { registerExportCommand } from './commands/export.ts';
import { registerGenerateCommand } from './commands/generate.ts';
import { registerImportCommand } from './commands/import.ts';
import { registerReportCommand } from './commands/report.ts';
import { registerRescoreCommand } from './commands/rescore.ts';
import type { RunOutcome } from './commands/run.ts';
import { registerRunCommand } from './commands/run.ts';
import { registerRunsCommand } from './commands/runs.ts';
import { registerServeCommand } from './commands/serve.ts';
import { registerSuitesCommand } from './commands/suites.ts';
import { registerSweepCommand } from './commands/sweep.ts';
import { registerViewCommand } from './commands/view.ts';
import { registerWorkerCommand } from './commands/worker.ts';
import { refuseRepeatedFlags } from './refuse-repeated-flags.ts';
import { Interrupted } from './stop-signals.ts';
import { toolforgeVersion } from './toolforge-version.ts';
import { limitHeapGrowth } from '../runner/heap-growth.ts';

/** Exit codes: 0 success, 2 a ToolForgeError or usage error (the message says the fix), 1 a bug or crash, 130 interrupted. */
export const exitCodes = { success: 0, failure: 1, badInput: 2, interrupted: 130 } as const;

/** `argv` is recorded with each run as provenance. */
export function createProgram(io: CliIo, argv: readonly string[] = [], outcome: RunOutcome = { exitCode: 0 }): Command {
  const program = new Command('toolforge')
    .description('Generate fresh, executable tool-calling benchmarks, run models on them, score them with deterministic oracles.')
    .version(toolforgeVersion, '-V, --version')
    .showHelpAfterError("  fix: see 'toolforge --help' for the commands, and 'toolforge <command> --help' for a command's flags")
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .addHelpText('after', [
      '',
      'Examples:',
      '  toolforge run funcgen --model builtin/planner                 no API key needed',
      '  toolforge run funcgen --model openai/gpt-4.1 --trials 3       reads OPENAI_API_KEY',
      '  toolforge run nestful --model openai-compatible/qwen3 --base-url http://127.0.0.1:8000/v1',
      '  toolforge report --format html --out report.html',
      '',
      'Results go to .toolforge/results.db (--db to choose another file).',
    ].join('\n'))
    .exitOverride();
  // An empty path (--out "$FILE" with FILE unset) would resolve to the current folder and fail there, or write
  // the default file: every flag and argument that names a file is refused empty, naming it.
  program.hook('preAction', (_program, action) => {
    // Peak memory near the live size, which runs and reports keep bounded (see heap-growth.ts). Not for generate:
    // it keeps nothing that grows, and the cap (V8's, so every thread's) made its generation threads collect their
    // whole heaps every few MB: 20,000 funcgen tasks on two threads took 4.3 s with it and 2.4 s without.
    if (action.name() !== 'generate') limitHeapGrowth();
    const options = action.opts() as Record<string, unknown>;
    for (const option of action.options) {
      const key = option.attributeName();
      // `--out -` is the standard output, as it is to most tools, not a file named '-'.
      if (option.long === '--out' && options[key] === '-') action.setOptionValue(key, undefined);
      // A tasks file is read again (its first line, then the stream; a resume reads it once more), an eval set and a
      // price file are files, and a database is not a stream: `-` is none of them.
      if (options[key] === '-' && option.long !== '--out' && /<(file|path|file\|url|url\|file)>/.test(option.flags)) {
        throw new ConfigError('config.invalid', `${option.long} - (the standard input) cannot be read${option.long === '--tasks' ? ': a run reads its tasks file more than once (and again when it is resumed)' : ''}`, {
          fix: option.long === '--tasks'
            ? 'write the tasks to a file first (toolforge generate <suite> --out tasks.jsonl), then pass --tasks tasks.jsonl'
            : /db$/.test(option.long ?? '') ? `a database is a file: pass ${option.long} <path>, or leave it out for the default`
              : `save it to a file first and pass ${option.long} <its path>`,
        });
      }
      if (options[key] === '' && /<(file|path|dir|folder|url|file\|url|url\|file|cmd)>/.test(option.flags)) {
        throw new ConfigError('config.invalid', `${option.long} is empty`, { fix: `pass ${option.long} ${/<([^>]+)>/.exec(option.flags)?.[0] ?? '<value>'}, or leave it out` });
      }
    }
    action.registeredArguments.forEach((argument, index) => {
      if (action.args[index] === '' && /file/.test(argument.name())) {
        throw new ConfigError('config.invalid', `the <${argument.name()}> argument is empty`, { fix: `pass the path of the ${argument.name()}` });
      }
      if (action.args[index] === '-' && /file/.test(argument.name())) {
        throw new ConfigError('config.invalid', `the <${argument.name()}> argument '-' (the standard input) cannot be read: ${action.name()} reads a file`, {
          fix: `save it to a file first and pass its path${action.name() === 'import' ? ' (toolforge export <run> --out run.jsonl writes one)' : ''}`,
        });
      }
    });
  });
  registerSuitesCommand(program, io);
  registerGenerateCommand(program, io);
  registerRunCommand(program, io, argv, outcome);
  registerReportCommand(program, io);
  registerRescoreCommand(program, io, argv);
  registerSweepCommand(program, io, argv, outcome);
  registerRunsCommand(program, io);
  registerExportCommand(program, io);
  registerImportCommand(program, io);
  registerViewCommand(program, io);
  registerDeleteCommand(program, io);
  registerDataCommand(program, io);
  registerServeCommand(program, io, argv, outcome);
  registerWorkerCommand(program, io, argv, outcome);
  // Subcommands inherit the output routing and the exit override; they are set on each explicitly, with a usage
  // error's fix naming the command's own help (`toolforge data fetch --help`), not a placeholder.
  const configure = (commands: readonly Command[], path: string): void => {
    for (const command of commands) {
      const name = `${path} ${command.name()}`;
      command
        .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
        .exitOverride()
        .showHelpAfterError(`  fix: see '${name} --help' for the flags and the values they take`);
      configure(command.commands, name);
    }
  };
  configure(program.commands, 'toolforge');
  refuseRepeatedFlags(program);
  return program;
}

/** Runs the CLI on `argv` (without the node and script paths) and returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const outcome: RunOutcome = { exitCode: exitCodes.success };
  const program = createProgram(io, argv, outcome);
  if (argv.length === 0) {
    program.outputHelp();
    return exitCodes.success;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return outcome.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message; help and version end with exit code 0.
      return error.exitCode === 0 ? exitCodes.success : exitCodes.badInput;
    }
    // The reader of standard output stopped reading (| head): the output ends there, as a Unix tool's does.
    if (error instanceof OutputClosed) return exitCodes.success;
    if (error instanceof Interrupted) {
      io.stderr(`interrupted: ${error.message}\n`);
      return exitCodes.interrupted;
    }
    // Every ToolForgeError says what went wrong and how to fix it; 'internal' ones are our bugs.
    if (error instanceof ToolForgeError && error.code !== 'internal') {
      io.stderr(`error: ${error.message}\n`);
      return exitCodes.badInput;
    }
    // A file-system error no command named itself (a folder where a file should be, a file it may not read): the
    // user's machine, not a bug, so the path and the fix rather than a stack trace.
    const described = describeSystemError(error);
    if (described) {
      io.stderr(`error: ${described.message}\n`);
      return exitCodes.badInput;
    }
    io.stderr(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return exitCodes.failure;
  }
}

