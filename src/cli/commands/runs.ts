import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { openResultsStore } from '../../store/index.ts';
import { textTable } from '../../report/text-table.ts';
import type { CliIo } from '../cli-io.ts';
import { resolveDatabasePath } from '../option-parsers.ts';

export function registerRunsCommand(program: Command, io: CliIo): void {
  program
    .command('runs')
    .description('list the runs in the results database, newest first')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .option('--suite <id>', 'only runs of this suite')
    .option('--json', 'print the runs as JSON')
    .action((options: { db?: string; suite?: string; json?: boolean }) => {
      const path = resolveDatabasePath(options.db, io.cwd);
      if (!existsSync(path)) {
        io.stdout(options.json ? '[]\n' : `no results database at ${path} yet; start a run with: toolforge run funcgen --model builtin/planner\n`);
        return;
      }
      const store = openResultsStore(path);
      try {
        const runs = store.listRuns(options.suite ? { suiteId: options.suite } : undefined);
        const rows = runs.map((run) => {
          const counts = store.countEpisodes(run.id);
          return { run, counts };
        });
        if (options.json) {
          io.stdout(`${JSON.stringify(rows.map(({ run, counts }) => ({
            id: run.id, createdAt: run.createdAt, suite: run.suite.id, model: run.model, mode: run.mode, status: run.status,
            tasks: run.taskCount, trials: run.trials, episodes: counts,
          })), null, 2)}\n`);
          return;
        }
        if (rows.length === 0) {
          io.stdout(`no runs recorded yet; start one with: toolforge run funcgen --model builtin/planner\n`);
          return;
        }
        io.stdout(`${textTable({
          columns: ['run', 'created', 'suite', 'model', 'mode', 'status', 'tasks', 'trials', 'scored', 'infrastructure errors'],
          rows: rows.map(({ run, counts }) => [run.id, run.createdAt, run.suite.id, run.model, run.mode ?? 'default', run.status,
            run.taskCount, run.trials, counts.scored, counts['infrastructure-error']]),
        })}\n`);
      } finally {
        store.close();
      }
    });
}
