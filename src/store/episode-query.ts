/**
 * Filtered, paged reads of a run's episodes, done by SQL so a viewer or report of a 10,000-episode run
 * never loads every transcript. Transcripts are left out; fetch one task's trials for those.
 */
import type { EpisodeRecord, EpisodeStatus } from '../core/episode.ts';
import { ConfigError } from '../core/errors.ts';
import type { SqlDialect } from './sql-connection.ts';

/** An episode without its transcript. */
/** An episode without its transcript and trace (what reports and listings read). */
export type EpisodeOutcome = Omit<EpisodeRecord, 'messages' | 'finalState' | 'calls' | 'warnings' | 'raw'>;

export type EpisodeQuery = {
  status?: EpisodeStatus;
  /** Scored episodes that passed, or scored ones that failed. */
  outcome?: 'passed' | 'failed';
  /** A failure code of a failed scored episode (a failure without a code counts as result.wrong). */
  failure?: string;
  /** A task id, or a glob over ids (`funcgen/3/*`). */
  task?: string;
  /** Case-insensitive text in the task id or anywhere in the task (prompt, tools, gold). */
  search?: string;
  /** Knob values the task was generated with (its params), compared as text: `{ core: '5' }`. */
  knobs?: Readonly<Record<string, string>>;
  limit?: number;
  offset?: number;
};

export type EpisodePage = { total: number; offset: number; limit: number; episodes: EpisodeOutcome[] };

/** What a runs table needs, without reading a transcript. */
export type RunOutcomeCounts = {
  scored: number;
  passed: number;
  infrastructureErrors: number;
  cancelled: number;
  /** Failed scored episodes by failure code. */
  failures: Record<string, number>;
};

export const defaultPageSize = 100;
export const maximumPageSize = 1000;

export function episodeQuerySql(query: EpisodeQuery, columns: string, dialect: SqlDialect = 'sqlite'): {
  key: string; count: string; page: string; taskIds: string; parameters: Record<string, string | number>; offset: number; limit: number;
} {
  const limit = query.limit ?? defaultPageSize;
  const offset = query.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > maximumPageSize) {
    throw new ConfigError('input.invalid', `limit must be an integer from 1 to ${maximumPageSize}, got ${limit}`, { fix: `pass ?limit=${defaultPageSize}` });
  }
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new ConfigError('input.invalid', `offset must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${offset}`, { fix: 'pass ?offset=0' });
  }
  const conditions = ['e.run_id = @run_id'];
  const parameters: Record<string, string | number> = { limit, offset };
  if (query.status !== undefined) {
    conditions.push('e.status = @status');
    parameters.status = query.status;
  }
  if (query.outcome !== undefined) conditions.push(`e.status = 'scored' AND e.passed = ${query.outcome === 'passed' ? 1 : 0}`);
  if (query.failure !== undefined) {
    conditions.push(`e.status = 'scored' AND e.passed = 0 AND COALESCE(e.failure, 'result.wrong') = @failure`);
    parameters.failure = query.failure;
  }
  if (query.task !== undefined) {
    // PostgreSQL has no GLOB: the same pattern as an anchored regular expression.
    conditions.push(dialect === 'postgres' ? 'e.task_id ~ @task' : 'e.task_id GLOB @task');
    parameters.task = dialect === 'postgres' ? globToRegularExpression(query.task) : query.task;
  }
  if (query.search !== undefined && query.search !== '') {
    conditions.push(dialect === 'postgres'
      ? '(strpos(lower(e.task_id), lower(@search)) > 0 OR strpos(lower(t.task), lower(@search)) > 0)'
      : '(instr(lower(e.task_id), lower(@search)) > 0 OR instr(lower(t.task), lower(@search)) > 0)');
    parameters.search = query.search;
  }
  Object.entries(query.knobs ?? {}).sort(([left], [right]) => left.localeCompare(right)).forEach(([name, value], index) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new ConfigError('input.invalid', `knob name '${name}' is not an identifier`, { fix: 'filter on a knob of the suite, e.g. knob.core=5' });
    }
    // `->` gives the JSON text of the value: 5, true, "name"; a plain string matches its quoted form too.
    conditions.push(dialect === 'postgres'
      ? `((t.task::jsonb -> 'params' -> '${name}')::text) IN (@knob${index}, to_jsonb(CAST(@knob${index} AS TEXT))::text)`
      : `(t.task -> '$.params.${name}') IN (@knob${index}, json_quote(@knob${index}))`);
    parameters[`knob${index}`] = value;
  });
  const from = 'FROM episodes e LEFT JOIN run_tasks t ON t.run_id = e.run_id AND t.task_id = e.task_id';
  const where = `WHERE ${conditions.join(' AND ')}`;
  return {
    key: where,
    count: `SELECT COUNT(*) AS count ${from} ${where}`,
    page: `SELECT ${columns} ${from} ${where} ORDER BY t.ordinal, e.trial LIMIT @limit OFFSET @offset`,
    taskIds: `SELECT e.task_id AS "taskId" ${from} ${where} GROUP BY e.task_id ORDER BY MIN(t.ordinal)`,
    parameters,
    offset,
    limit,
  };
}

/** SQLite's GLOB (`*`, `?`, `[...]`, case-sensitive) as an anchored POSIX regular expression. */
export function globToRegularExpression(glob: string): string {
  let pattern = '^';
  for (let index = 0; index < glob.length; index += 1) {
    const character = glob[index];
    if (character === '*') pattern += '.*';
    else if (character === '?') pattern += '.';
    else if (character === '[') {
      const end = glob.indexOf(']', index + 2);
      if (end < 0) {
        pattern += '\\[';
        continue;
      }
      const body = glob.slice(index + 1, end);
      pattern += `[${body}]`;
      index = end;
    } else pattern += /[\\^$.|+(){}]/.test(character) ? `\\${character}` : character;
  }
  return `${pattern}$`;
}
