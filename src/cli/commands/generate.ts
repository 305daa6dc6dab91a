import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { generateTasks } from '../../runner/generate-tasks.ts';
import { formatTasksJsonl } from '../../runner/read-tasks-file.ts';
import { resolveKnobs } from '../../suites/knob.ts';
import { getSuite } from '../../suites/registry.ts';
import type { CliIo } from '../cli-io.ts';
import { collectSetting, parseNonNegativeInteger, parsePositiveInteger } from '../option-parsers.ts';

type GenerateFlags = { seed: number; count?: number; set?: Record<string, string>; out?: string; validate: boolean };

export function registerGenerateCommand(program: Command, io: CliIo): void {
  program
    .command('generate')
    .description('generate tasks as JSONL (same suite version, seed and knobs => identical bytes); each is checked solvable by builtin/oracle')
    .argument('<suite>', "suite id (see 'toolforge suites')")
    .option('--seed <n>', 'generation seed', parseNonNegativeInteger, 0)
    .option('--count <n>', "how many tasks (default: the suite's default count)", parsePositiveInteger)
    .option('--set <name=value>', "a suite knob, repeatable (see 'toolforge suites')", collectSetting)
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--no-validate', 'skip the builtin/oracle solvability check')
    .action(async (suiteId: string, flags: GenerateFlags) => {
      const suite = getSuite(suiteId);
      const params = resolveKnobs(suite.id, suite.knobs, flags.set ?? {});
      const tasks = await generateTasks(suite, { seed: flags.seed, count: flags.count, params, validate: flags.validate });
      const jsonl = formatTasksJsonl(tasks);
      if (flags.out) {
        const path = resolve(io.cwd, flags.out);
        await writeFile(path, jsonl);
        io.stderr(`wrote ${tasks.length} ${suite.id} tasks to ${path}\n`);
      } else {
        io.stdout(jsonl);
      }
    });
}
