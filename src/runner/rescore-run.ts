/**
 * Re-scores a stored run with the current scorer, without calling any model: each scored episode's
 * stored messages, end state and call record go through the suite's score() again, and the result is
 * a new run (same tasks, model and settings) whose provenance names the old one (`rescoredFrom`).
 * Episodes that were not scored (infrastructure errors) are copied as they are.
 */
import type { EpisodeRecord } from '../core/episode.ts';
import { ConfigError, errorMessage } from '../core/errors.ts';
import type { ResultsStore } from '../store/results-store.ts';
import { defaultResultsPath, openResultsStore } from '../store/results-store.ts';
import { createRunId } from '../store/run-id.ts';
import { getSuite } from '../suites/registry.ts';
import type { Suite } from '../suites/spec.ts';
import { collectProvenance } from './provenance.ts';
import { scoreEpisode } from './run-episode.ts';
import type { RunSummary } from './summarize-run.ts';
import { summarizeRun } from './summarize-run.ts';

export type RescoreOptions = {
  runId: string;
  /** Default: the registered suite of the run's id, as it is now. */
  suite?: Suite;
  store?: ResultsStore;
  dbPath?: string;
  signal?: AbortSignal;
  cliArgs?: string[];
};

export async function rescoreRun(options: RescoreOptions): Promise<RunSummary> {
  const store = options.store ?? openResultsStore(options.dbPath ?? defaultResultsPath);
  try {
    const old = store.getRun(options.runId);
    const suite = options.suite ?? getSuite(old.suite.id);
    const tasks = store.listTasks(old.id);
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const episodes = store.listEpisodes(old.id);
    const runId = createRunId(suite.id);
    const provenance = collectProvenance({
      suite, modelRef: old.model, baseUrl: old.baseUrl, settings: old.settings, seed: old.seed, params: old.params, mode: old.mode,
      trials: old.trials, cliArgs: options.cliArgs ?? [], keepRaw: old.provenance.keepRaw, transforms: old.provenance.transforms, rescoredFrom: old.id,
    });
    store.createRun({
      id: runId, suite: { id: suite.id, version: suite.version }, model: old.model, baseUrl: old.baseUrl, mode: old.mode, trials: old.trials,
      concurrency: old.concurrency, seed: old.seed, params: old.params, settings: old.settings, provenance,
    }, tasks);
    store.setRunStatus(runId, 'running');
    for (const episode of episodes) {
      options.signal?.throwIfAborted();
      const task = byId.get(episode.taskId);
      if (!task) throw new ConfigError('store.invalid', `run '${old.id}' has an episode of task '${episode.taskId}' it does not list`, { fix: 'the results file is damaged; re-import the run' });
      const rescored: EpisodeRecord = { ...episode, runId };
      if (episode.status === 'scored' && episode.termination !== null) {
        try {
          rescored.score = await scoreEpisode(suite, task, episode.mode, {
            messages: episode.messages, finalState: episode.finalState, termination: episode.termination, calls: episode.calls,
          }, options.signal);
        } catch (error) {
          store.setRunStatus(runId, 'failed');
          throw new ConfigError('input.invalid', `run '${old.id}': episode ${episode.taskId} trial ${episode.trial} cannot be re-scored: ${errorMessage(error)}`, {
            fix: 'episodes stored before end states and call records were kept (store schema 1) cannot be re-scored: run the model again',
            cause: error,
          });
        }
      }
      store.saveEpisode(rescored, task.prompt);
    }
    store.setRunStatus(runId, old.status === 'finished' ? 'finished' : old.status);
    return summarizeRun(store, runId, suite);
  } finally {
    if (!options.store) store.close();
  }
}
