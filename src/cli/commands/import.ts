import type { Command } from 'commander';
import { existsSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { readLinesSync, withLinesRead } from '../../core/read-lines.ts';
import { isPostgresLocation, openResultsStore, readRunExport } from '../../store/index.ts';
import type { CliIo } from '../cli-io.ts';
import { resolveDatabasePath } from '../option-parsers.ts';
import { fileProblem } from '../../core/file-problem.ts';
import type { Task } from '../../core/task.ts';
import { shellArgument } from '../../core/shell-argument.ts';
import { isStoreWriteFailure } from '../../core/system-error.ts';
import { databaseFlag } from './run.ts';
import { checkExpected } from '../../runner/store-tasks.ts';
import { getSuite } from '../../suites/registry.ts';
import type { Suite } from '../../suites/spec.ts';

export function registerImportCommand(program: Command, io: CliIo): void {
  program
    .command('import')
    .description("add a run exported with 'toolforge export' to the results database")
    .argument('<file>', 'a JSONL file written by toolforge export')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .action((file: string, options: { db?: string }) => {
      const path = resolve(io.cwd, file);
      // Read a line at a time and written as it is read, in one transaction: memory does not grow with the file.
      const reader = readExportLines(path);
      try {
        // The header is checked before the database is touched: a file that is not an export creates nothing.
        const head: string[] = [];
        for (let next = reader.next(); !next.done; next = reader.next()) {
          head.push(next.value);
          if (next.value.trim() !== '') break;
        }
        readRunExport(head, path).next();
        const databasePath = resolveDatabasePath(options.db, io.cwd);
        const existed = isPostgresLocation(databasePath) || existsSync(databasePath);
        const createdFolders = existed ? [] : missingFolders(dirname(databasePath));
        const removeMadeDatabase = (): void => {
          if (existed) return;
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${databasePath}${suffix}`, { force: true });
          for (const folder of createdFolders) {
            try {
              rmdirSync(folder);
            } catch {
              // Not empty (something else was written there meanwhile): it stays.
            }
          }
        };
        let store;
        try {
          store = openResultsStore(databasePath);
        } catch (error) {
          // A full disk can fail the new file's first write: it must not stay behind, half made.
          removeMadeDatabase();
          throw error;
        }
        let imported = false;
        try {
          let run;
          try {
            run = store.importRunLines(withLinesRead(head, reader), path, { checkTask: importedTaskProblem });
          } catch (error) {
            // The store failed a write (a full disk): the generic fix speaks of continuing a run, but an import is one
            // transaction, rolled back.
            if (isStoreWriteFailure(error)) io.stderr(`import of ${file} stopped; nothing of it was stored (one transaction, rolled back). After fixing the error below, import it again with: toolforge import ${shellArgument(file)}${databaseFlag(options)}\n`);
            throw error;
          }
          imported = true;
          io.stdout(`imported run ${run.id} (${run.suite.id}, ${run.model}, ${run.taskCount} tasks)\n`);
        } finally {
          store.close();
          // A bad line rolled the import back; a database (and folders) made for it must not stay behind, empty.
          if (!imported) removeMadeDatabase();
        }
      } finally {
        reader.return(undefined);
      }
    });
}

/**
 * An imported task is checked as a task entering a run is (its suite's ground truth schema, parts that disagree): a
 * run continued or rescored later would otherwise meet the edit as an error in every episode, or score against it.
 */
function importedTaskProblem(task: Task): string | undefined {
  let suite: Suite;
  try {
    suite = getSuite(task.suite.id);
  } catch {
    return undefined;
  }
  try {
    checkExpected(suite, task);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.problem;
    throw error;
  }
}

/** The file's lines as they are read; a file that cannot be read is the user's to fix. */
function* readExportLines(path: string): Generator<string, void, undefined> {
  const lines = readLinesSync(path);
  try {
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = lines.next();
      } catch (error) {
        // A readable file that is not text (compressed) says so itself.
        if (error instanceof ConfigError) throw error;
        throw new ConfigError('input.unreadable', `cannot read ${path}: ${fileProblem(path, error)}`, {
          fix: "pass the path of a file written by 'toolforge export'",
          cause: error,
        });
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Closes the file when the import stops early.
    lines.return(undefined);
  }
}

/** The folders from `folder` up that do not exist yet (opening the database creates them), deepest first. */
function missingFolders(folder: string): string[] {
  const missing: string[] = [];
  for (let current = folder; !existsSync(current) && dirname(current) !== current; current = dirname(current)) missing.push(current);
  return missing;
}
