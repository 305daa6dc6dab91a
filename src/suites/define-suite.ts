/**
 * Makes a suite folder's SuiteDefinition the Suite the runner uses, checking `score.details` against the suite's
 * `detailsSchema` at the two places they cross a boundary: when the scorer returns them (so nothing malformed is
 * stored) and when stored details are read back for the summary (a report or a re-score of a run that another
 * version of the suite scored). Past these checks, the suite's summary reads its own details type, uncast.
 */
import type { ZodError } from 'zod';
import { ConfigError, ToolForgeError } from '../core/errors.ts';
import type { ScoreDetails } from '../core/score.ts';
import type { ScoredEpisode, ScoredEpisodes, Suite, SuiteDefinition } from './spec.ts';
import { formatFieldPath } from '../core/field-path.ts';

export function defineSuite<TExpected, TDetails extends ScoreDetails>(definition: SuiteDefinition<TExpected, TDetails>): Suite<TExpected, TDetails> {
  const { summarize, ...rest } = definition;
  return {
    ...rest,
    async score(input) {
      const score = await definition.score(input);
      const parsed = definition.detailsSchema.safeParse(score.details);
      if (!parsed.success) {
        throw new ToolForgeError('suite.invalid-details', `suite '${definition.id}' scored task '${input.task.id}' with details that break its detailsSchema: ${firstIssue(parsed.error)}`, {
          fix: `this is a bug in the ${definition.id} scorer (or its detailsSchema): make them agree`,
        });
      }
      // The scorer's own object is stored (not the parse's copy), so stored bytes do not depend on the schema.
      return score;
    },
    summarize(episodes: ScoredEpisodes) {
      return summarize(checkedDetails(definition, episodes));
    },
  };
}

/**
 * The stored episodes with their details checked as the summary reads them: lazily, one at a time, so a summary
 * folding a 100,000-episode run from the store still holds one page. The task is read through, only when asked
 * (a stored episode reads it from the store).
 */
function checkedDetails<TExpected, TDetails extends ScoreDetails>(definition: SuiteDefinition<TExpected, TDetails>, episodes: ScoredEpisodes): ScoredEpisodes<TDetails> {
  return {
    *[Symbol.iterator]() {
      for (const episode of episodes) {
        const parsed = definition.detailsSchema.safeParse(episode.score.details);
        if (!parsed.success) {
          throw new ConfigError('store.invalid', `the stored score of task '${episode.task.id}' trial ${episode.trial} does not have ${definition.id} details: ${firstIssue(parsed.error)}`, {
            fix: `it was scored by another version of the ${definition.id} suite (this one is ${definition.version}): re-score the run with 'toolforge rescore <run>', or report it with the ToolForge that ran it`,
          });
        }
        const score = { ...episode.score, details: parsed.data };
        yield { trial: episode.trial, score, get task() { return episode.task; } } satisfies ScoredEpisode<TDetails>;
      }
    },
  };
}

/** `details.<path>: <message>` of the first issue. */
function firstIssue(error: ZodError): string {
  const issue = error.issues[0];
  return `${formatFieldPath(issue?.path ?? [], 'details')}: ${issue?.message ?? 'invalid'}`;
}
