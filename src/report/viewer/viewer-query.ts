import type { EpisodeStatus } from '../../core/episode.ts';
import { ConfigError } from '../../core/errors.ts';
import { failureCodes } from '../../core/failure.ts';
import type { EpisodeQuery } from '../../store/episode-query.ts';
import { defaultPageSize, maximumPageSize } from '../../store/episode-query.ts';

const statuses: readonly EpisodeStatus[] = ['scored', 'infrastructure-error', 'cancelled'];

/**
 * The episode filters of a URL: `?status=`, `?outcome=passed|failed`, `?failure=<code>`, `?task=<id or glob>`,
 * `?search=<text>`, `?knob.<name>=<value>`, `?limit=`, `?offset=`. Empty values mean "any" (what an HTML form sends).
 */
export function parseEpisodeQuery(parameters: URLSearchParams): EpisodeQuery {
  const value = (name: string): string | undefined => {
    const text = parameters.get(name);
    return text === null || text === '' ? undefined : text;
  };
  const failure = value('failure');
  if (failure !== undefined && !(failureCodes as readonly string[]).includes(failure)) {
    throw new ConfigError('input.invalid', `failure must be a failure code (${failureCodes.join(', ')}), got '${failure}'`, { fix: 'pass ?failure=result.wrong' });
  }
  const status = value('status');
  if (status !== undefined && !statuses.includes(status as EpisodeStatus)) {
    throw new ConfigError('input.invalid', `status must be one of ${statuses.join(', ')}, got '${status}'`, { fix: 'pass ?status=scored' });
  }
  const outcome = value('outcome');
  if (outcome !== undefined && outcome !== 'passed' && outcome !== 'failed') {
    throw new ConfigError('input.invalid', `outcome must be passed or failed, got '${outcome}'`, { fix: 'pass ?outcome=failed' });
  }
  const knobs: Record<string, string> = {};
  for (const [name, text] of parameters) {
    if (name.startsWith('knob.') && text !== '') knobs[name.slice('knob.'.length)] = text;
  }
  return {
    status: status as EpisodeStatus | undefined,
    outcome: outcome as EpisodeQuery['outcome'],
    failure,
    task: value('task'),
    search: value('search'),
    knobs,
    limit: integer(value('limit'), 'limit'),
    offset: integer(value('offset'), 'offset'),
  };
}

/** The query string of a filter (without limit and offset unless given), for links that keep the filters. */
export function episodeQueryString(query: EpisodeQuery, overrides: { offset?: number; limit?: number } = {}): string {
  const parameters = new URLSearchParams();
  if (query.status) parameters.set('status', query.status);
  if (query.outcome) parameters.set('outcome', query.outcome);
  if (query.failure) parameters.set('failure', query.failure);
  if (query.task) parameters.set('task', query.task);
  if (query.search) parameters.set('search', query.search);
  for (const [name, value] of Object.entries(query.knobs ?? {})) parameters.set(`knob.${name}`, value);
  const limit = overrides.limit ?? query.limit;
  const offset = overrides.offset ?? query.offset;
  if (limit !== undefined) parameters.set('limit', String(limit));
  if (offset !== undefined && offset > 0) parameters.set('offset', String(offset));
  const text = parameters.toString();
  return text === '' ? '' : `?${text}`;
}

function integer(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  // One rule and one fix per parameter, whatever is wrong with the value (not a number, negative, past what a count holds).
  const problem = name === 'limit' ? `limit must be an integer from 1 to ${maximumPageSize}` : `${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`;
  const fix = `pass ?${name}=${name === 'limit' ? defaultPageSize : 0}`;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new ConfigError('input.invalid', `${problem}, got '${text}'`, { fix });
  return Number(text);
}

/** The parameters that filter a page of episodes (parseEpisodeQuery), besides `knob.<name>`. */
export const episodeFilterParameters: readonly string[] = ['status', 'outcome', 'failure', 'task', 'search', 'limit', 'offset'];

/**
 * Refuses a parameter the page does not read: a misspelt filter (`?stauts=failed`) would otherwise show every episode
 * as if filtered. `knobs`: the page takes `knob.<name>` filters too.
 */
export function checkParameters(parameters: URLSearchParams, page: string, known: readonly string[], options: { knobs?: boolean } = {}): void {
  for (const name of new Set(parameters.keys())) {
    // Given twice, only the first would count (`?outcome=passed&outcome=failed`): said, not picked.
    if (parameters.getAll(name).length > 1) {
      throw new ConfigError('input.invalid', `${name} is given ${parameters.getAll(name).length} times; it takes one value`, { fix: `pass ?${name}= once` });
    }
    if (known.includes(name) || (options.knobs === true && name.startsWith('knob.') && name.length > 'knob.'.length)) continue;
    const takes = [...known, ...(options.knobs === true ? ['knob.<name>'] : [])];
    throw new ConfigError('input.invalid', `${page} has no parameter '${name}'`, {
      fix: takes.length === 0 ? `open ${page} without a query string` : `use ${takes.map((parameter) => `?${parameter}=`).join(' ')}`,
    });
  }
}

/** A parameter with a closed set of values: absent or empty gives `fallback`, anything else outside the set is refused. */
export function choiceParameter<T extends string>(parameters: URLSearchParams, name: string, choices: readonly T[], fallback: T): T {
  const text = parameters.get(name);
  if (text === null || text === '') return fallback;
  if (!(choices as readonly string[]).includes(text)) {
    throw new ConfigError('input.invalid', `${name} must be one of ${choices.join(', ')}, got '${text}'`, { fix: `pass ?${name}=${fallback}` });
  }
  return text as T;
}
