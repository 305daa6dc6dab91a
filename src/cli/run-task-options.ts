/**
 * The flags every command that runs episodes of a suite takes the same way (`run`, `serve`): where the tasks come
 * from, the mode, trials, concurrency and the results database. Defined once so their spelling, parsing and help stay
 * one thing.
 */
import type { Command } from 'commander';
import { ConfigError } from '../core/errors.ts';
import { Option } from 'commander';
import type { Mode } from '../core/mode.ts';
import { modes } from '../core/mode.ts';
import { collectSetting, parseNonNegativeInteger, parsePositiveInteger, parseText } from './option-parsers.ts';

export type RunTaskFlags = {
  tasks?: string;
  /** false with --no-validate: a --tasks file's tasks are run without builtin/oracle solving each first. */
  validate: boolean;
  seed?: number;
  count?: number;
  set?: Record<string, string>;
  mode?: Mode;
  trials?: number;
  concurrency?: number;
  db?: string;
};

/** What differs between the commands: which mode a task gets by default, and what one unit of concurrency is. */
export type RunTaskOptionHelp = { modeDefault: string; concurrency: string };

export function addRunTaskOptions(command: Command, help: RunTaskOptionHelp): Command {
  return command
    .option('--tasks <file>', "use the tasks in this JSONL file (from 'toolforge generate') instead of generating; builtin/oracle solves each first (a task changed since it was generated is refused). With --resume: where the run's tasks file is now, if it was moved while the run was storing its tasks", parseText)
    .option('--no-validate', "with --tasks: run the file's tasks as they are, without builtin/oracle solving each first")
    .option('--seed <n>', 'generation seed (default 0)', parseNonNegativeInteger)
    .option('--count <n>', "how many tasks to generate (default: the suite's default count)", parsePositiveInteger)
    .option('--set <name=value>', "a suite knob, repeatable (see 'toolforge suites')", collectSetting)
    .addOption(new Option('--mode <mode>', `interaction mode (default: ${help.modeDefault})`).choices(modes))
    .option('--trials <n>', 'attempts per task (default 1; pass@k for k <= n)', parsePositiveInteger)
    .option('--concurrency <n>', help.concurrency, parsePositiveInteger)
    .option('--db <file|url>', 'results database: a SQLite file (default .toolforge/results.db) or postgres://user:password@host:port/database', parseText);
}

/** `--no-validate` only changes how a --tasks file is read: alone it would be ignored silently. */
export function checkValidateFlag(flags: Pick<RunTaskFlags, 'tasks' | 'validate'>): void {
  if (flags.validate === false && flags.tasks === undefined) {
    throw new ConfigError('config.invalid', "--no-validate skips builtin/oracle's solve of a --tasks file's tasks, and no --tasks is given", {
      fix: "add --tasks <file>, or drop --no-validate (generated tasks are always solved first; 'toolforge generate --no-validate' writes unchecked ones)",
    });
  }
}
