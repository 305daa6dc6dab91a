import type { Command } from 'commander';
import { existsSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import { isPostgresLocation, openResultsStore, parseRunExport } from '../../store/index.ts';
import type { CliIo } from '../cli-io.ts';
import { resolveDatabasePath } from '../option-parsers.ts';

export function registerImportCommand(program: Command, io: CliIo): void {
  program
    .command('import')
    .description("add a run exported with 'toolforge export' to the results database")
    .argument('<file>', 'a JSONL file written by toolforge export')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action(async (file: string, options: { db?: string }) => {
      const path = resolve(io.cwd, file);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        throw new ConfigError('input.unreadable', `cannot read ${path}: ${errorMessage(error)}`, {
          fix: "pass the path of a file written by 'toolforge export'",
          cause: error,
        });
      }
      // Validate before touching the database: a bad file must not leave an empty results file behind.
      parseRunExport(text, path);
      const databasePath = resolveDatabasePath(options.db, io.cwd);
      const existed = isPostgresLocation(databasePath) || existsSync(databasePath);
      const store = openResultsStore(databasePath);
      let imported = false;
      try {
        const run = store.importRun(text, path);
        imported = true;
        io.stdout(`imported run ${run.id} (${run.suite.id}, ${run.model}, ${run.taskCount} tasks)\n`);
      } finally {
        store.close();
        if (!imported && !existed) {
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${databasePath}${suffix}`, { force: true });
        }
      }
    });
}
