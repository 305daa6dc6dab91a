import type { Command } from 'commander';
import { openExistingStore } from '../open-store.ts';
import type { CliIo } from '../cli-io.ts';
import { writeOutputLines } from '../write-output-lines.ts';
import { resolveDatabasePath } from '../option-parsers.ts';
import { resolveRunId } from './resolve-run-id.ts';

export function registerExportCommand(program: Command, io: CliIo): void {
  program
    .command('export')
    .description("write one run (header, tasks, episodes, end line) as JSONL, for 'toolforge import' elsewhere")
    .argument('<run>', "run id (see 'toolforge runs'), or 'latest'")
    .option('--out <file>', 'write to this file instead of stdout (- or no --out: stdout)')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action(async (run: string, options: { out?: string; db?: string }) => {
      const store = openExistingStore(resolveDatabasePath(options.db, io.cwd));
      try {
        // Lines are made from pages of tasks and episodes and written as they come (an --out file beside its name,
        // renamed when complete): memory does not grow with the run.
        const written = await writeOutputLines(io, options.out, store.iterateExportLines(resolveRunId(store, run)));
        if (written.path !== undefined) io.stderr(`exported ${written.lines} lines to ${written.path}\n`);
      } finally {
        store.close();
      }
    });
}
