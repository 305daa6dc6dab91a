import { randomBytes } from 'node:crypto';

/**
 * A readable, unique run id: `<suite>-<yyyymmdd-hhmmss>-<4 hex>` in UTC. The clock and randomness
 * here only name the run; they never reach generation or scoring.
 */
export function createRunId(suiteId: string, now: Date = new Date(), suffix: string = randomBytes(2).toString('hex')): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const safeSuite = suiteId.replace(/[^A-Za-z0-9_-]+/g, '-');
  return `${safeSuite}-${date}-${time}-${suffix}`;
}

/**
 * A run id no run in `store` has yet. Four hex digits make a clash between runs started in the same second rare, not
 * impossible: a sweep or eval set of quick runs starts dozens a second, and a clash failed the run on the database's
 * unique key. Drawn again until free (in this process; another process's run in the same second and digits is still
 * refused by that key).
 */
export function unusedRunId(
  store: { findRun(runId: string): unknown }, suiteId: string,
  now: () => Date = () => new Date(), suffix: () => string = () => randomBytes(2).toString('hex'),
): string {
  for (let attempt = 1; ; attempt += 1) {
    const id = createRunId(suiteId, now(), suffix());
    if (store.findRun(id) === undefined || attempt === 64) return id;
  }
}
