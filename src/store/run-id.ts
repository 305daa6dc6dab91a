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
