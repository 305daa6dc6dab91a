/**
 * The file where the `--phrasing-model`'s answers are kept: `--transform perturb:paraphrase`'s paraphrases and a
 * suite's own phrasing (`--set phrasing=model`), each keyed by a hash of the model and its exact request, beside the
 * results database as the response cache is: a rerun, a resume or another command on the same folder asks the model
 * nothing and makes identical tasks, and a command stopped part way asks only for what it had not answered.
 */
import { dirname, join, resolve } from 'node:path';
import { defaultResultsPath, isPostgresLocation } from '../store/results-store.ts';
import type { ParaphraseCache } from '../transforms/perturb/model-paraphrase.ts';
import { createFileParaphraseCache } from '../transforms/perturb/model-paraphrase.ts';

export function paraphraseCachePathFor(resultsPath: string, cwd: string): string {
  // A PostgreSQL results database has no folder: the cache stays a local file in the default folder.
  if (isPostgresLocation(resultsPath)) return resolve(cwd, dirname(defaultResultsPath), 'paraphrase-cache.json');
  return join(dirname(resolve(cwd, resultsPath)), 'paraphrase-cache.json');
}

/** `placementFix`: how the command's user moves it (run: its --db; generate: the folder it runs in). */
export function openParaphraseCache(resultsPath: string, cwd: string, placementFix = 'it is kept beside the results database: pass a --db in a folder you can write'): ParaphraseCache {
  return createFileParaphraseCache(paraphraseCachePathFor(resultsPath, cwd), placementFix);
}
