import type { Command } from 'commander';
import { openExistingStore } from '../open-store.ts';
import type { CliIo } from '../cli-io.ts';
import { writeOutputFile } from '../write-output-file.ts';
import { resolveDatabasePath } from '../option-parsers.ts';
import { resolveRunId } from './resolve-run-id.ts';

export function registerExportCommand(program: Command, io: CliIo): void {
  program
    .command('export')
    .description("write one run (header, tasks, episodes) as JSONL, for 'toolforge import' elsewhere")
    .argument('<run>', "run id (see 'toolforge runs'), or 'latest'")
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action(async (run: string, options: { out?: string; db?: string }) => {
      const store = openExistingStore(resolveDatabasePath(options.db, io.cwd));
      try {
        const jsonl = store.exportRun(resolveRunId(store, run));
        if (options.out) {
          const path = await writeOutputFile(io.cwd, options.out, jsonl);
          io.stderr(`exported ${jsonl.split('\n').filter(Boolean).length} lines to ${path}\n`);
        } else {
          io.stdout(jsonl);
        }
      } finally {
        store.close();
      }
    });
}
