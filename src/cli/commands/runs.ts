import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { ConfigError } from '../../core/errors.ts';
import { textTable } from '../../report/text-table.ts';
import { formatPercent } from '../../report/format-figure.ts';
import { transformsLabel } from '../../report/model-variant.ts';
import { modelSettingsLabel } from '../../models/model-settings-label.ts';
import { runModeLabel } from '../../report/run-mode-label.ts';
import type { StoredRun } from '../../store/index.ts';
import { isPostgresLocation } from '../../store/index.ts';
import { isWaitingForWorkers, shownRunStatus } from '../../runner/run-hold.ts';
import { listSuites } from '../../suites/registry.ts';
import type { CliIo } from '../cli-io.ts';
import { openExistingStore, withStore } from '../open-store.ts';
import { resolveDatabasePath } from '../option-parsers.ts';
import { databaseFlag } from './run.ts';
import { resumeCommand } from '../../runner/external-agent-run.ts';
import { cannotStoreRestOfTasks, rescoreAgainFix, startAgainFix, stoppedWithWorkLeft } from '../../runner/interrupted-run.ts';
import type { StoppedRunStatus } from '../../runner/interrupted-run.ts';

type RunsFlags = { db?: string; suite?: string; model?: string; status?: string; json?: boolean };

// 'interrupted': stored as running, but no process runs it (it was killed): see shownRunStatus.
const runStatuses = ['running', 'finished', 'cancelled', 'failed', 'interrupted'];

export function registerRunsCommand(program: Command, io: CliIo): void {
  program
    .command('runs')
    .description('list the runs in the results database, newest first, with their pass rates')
    .option('--db <file>', 'results database (default .toolforge/results.db)')
    .option('--suite <id>', 'only runs of this suite')
    .option('--model <ref>', 'only runs of this model')
    .option('--status <status>', `only runs in this status (${runStatuses.join('|')})`)
    .option('--json', 'print the runs as JSON')
    .action(async (flags: RunsFlags) => {
      if (flags.status !== undefined && !runStatuses.includes(flags.status)) {
        throw new ConfigError('config.invalid', `unknown run status '${flags.status}'`, { fix: `use --status ${runStatuses.join('|')}` });
      }
      const path = resolveDatabasePath(flags.db, io.cwd);
      if (!isPostgresLocation(path) && !existsSync(path)) {
        io.stdout(flags.json ? '[]\n' : `no results database at ${path} yet; start a run with: toolforge run funcgen --model builtin/planner\n`);
        return;
      }
      await withStore(openExistingStore(path), (store) => {
        const everyRun = store.listRuns();
        const runs = everyRun.map((run) => ({ run, status: shownRunStatus(store, run) }))
          .filter(({ run, status }) => (flags.suite === undefined || run.suite.id === flags.suite)
            && (flags.model === undefined || run.model === flags.model)
            && (flags.status === undefined || status === flags.status));
        const rows = runs.map(({ run, status }) => ({ run, status, counts: store.countEpisodes(run.id), passed: store.countPassedEpisodes(run.id) }));
        if (flags.json) {
          io.stdout(`${JSON.stringify(rows.map(({ run, status, counts, passed }) => ({
            id: run.id, createdAt: run.createdAt, suite: run.suite.id, model: run.model, mode: run.mode, status,
            transforms: transformsLabel(run.provenance.transforms) || null,
            modelSettings: modelSettingsLabel(run.baseUrl, run.settings) || null,
            tasks: run.taskCount, trials: run.trials, episodes: counts, passed, passRate: counts.scored > 0 ? passed / counts.scored : null,
          })), null, 2)}\n`);
          return;
        }
        if (rows.length === 0) {
          io.stdout(everyRun.length === 0
            ? 'no runs recorded yet; start one with: toolforge run funcgen --model builtin/planner\n'
            : `${noMatchMessage(flags, everyRun)}\n`);
          return;
        }
        // The transforms column is shown when a listed run has any (a drifted run beside its baseline).
        const transformed = rows.some(({ run }) => (run.provenance.transforms ?? []).length > 0);
        // So is the model settings column when listed runs differ in them (one model at two endpoints or temperatures).
        const configured = new Set(rows.map(({ run }) => modelSettingsLabel(run.baseUrl, run.settings))).size > 1;
        io.stdout(`${textTable({
          columns: ['run', 'created', 'suite', 'model', ...(configured ? ['model settings'] : []), 'mode', ...(transformed ? ['transforms'] : []), 'status', 'tasks', 'trials', 'scored', 'pass rate', 'infrastructure errors'],
          rows: rows.map(({ run, status, counts, passed }) => [run.id, run.createdAt, run.suite.id, run.model,
            ...(configured ? [modelSettingsLabel(run.baseUrl, run.settings) || '-'] : []), runModeLabel(run),
            ...(transformed ? [transformsLabel(run.provenance.transforms) || '-'] : []), status,
            run.taskCount, run.trials, counts.scored, counts.scored > 0 ? formatPercent(passed / counts.scored) : '-', counts['infrastructure-error']]),
        })}\n`);
        const waiting = rows.filter((row) => row.status === 'running' && isWaitingForWorkers(store, row.run));
        if (waiting.length > 0) {
          io.stdout(`${waiting.length} waiting for workers (episodes queued, none held by a worker): start one with toolforge worker --run ${waiting[0]!.run.id}${databaseFlag(flags)}\n`);
        }
        const stopped = rows.filter((row) => stoppedWithWorkLeft(store, row.run, row.status, row.counts.scored));
        // A run stopped while storing its tasks, with nothing to make the rest from (a phrasing model's tasks, tasks derived
        // from a file or from another run), cannot be resumed: it is started again instead.
        // A rescore stopped part-way is made again from the run it copies, never continued.
        const rescores = stopped.filter(({ run }) => run.provenance.rescoredFrom !== undefined);
        const lost = stopped.filter((row) => !rescores.includes(row) && cannotStoreRestOfTasks(store, row.run));
        const resumable = stopped.filter((row) => !rescores.includes(row) && !lost.includes(row));
        const resumableLines: Record<StoppedRunStatus, string> = {
          interrupted: 'interrupted (stopped before they ended, no process runs them)',
          cancelled: 'cancelled (stopped before they ended, by Ctrl-C or a stop signal)',
          failed: 'failed (stopped by an error; fix it first)',
        };
        for (const [status, line] of Object.entries(resumableLines)) {
          const group = resumable.filter((row) => row.status === status);
          if (group.length > 0) io.stdout(`${group.length} ${line}: finish one with ${resumeCommand(group[0]!.run, databaseFlag(flags))}\n`);
        }
        if (rescores.length > 0) {
          io.stdout(`${rescores.length} rescore${rescores.length === 1 ? '' : 's'} stopped part-way (no process runs ${rescores.length === 1 ? 'it' : 'them'}): ${rescoreAgainFix(rescores[0].run, databaseFlag(flags))}\n`);
        }
        if (lost.length > 0) {
          io.stdout(`${lost.length} stopped while storing tasks that cannot be made again (a phrasing model's, or derived from a file or another run), so --resume cannot finish them: ${startAgainFix(lost[0].run, databaseFlag(flags))}\n`);
        }
      });
    });
}

function noMatchMessage(flags: RunsFlags, everyRun: StoredRun[]): string {
  const filters = [
    flags.suite !== undefined ? `suite '${flags.suite}'` : '',
    flags.model !== undefined ? `model '${flags.model}'` : '',
    flags.status !== undefined ? `status '${flags.status}'` : '',
  ].filter(Boolean).join(', ');
  const knownSuites = [...new Set(everyRun.map((run) => run.suite.id))];
  const isUnknownSuite = flags.suite !== undefined && !listSuites().some((suite) => suite.id === flags.suite);
  const hint = isUnknownSuite
    ? `'${flags.suite}' is not a suite (see 'toolforge suites'); runs here are of: ${knownSuites.join(', ')}`
    : `${everyRun.length} runs are recorded (suites: ${knownSuites.join(', ')}); drop or change the filter`;
  return `no runs match ${filters}. ${hint}`;
}
