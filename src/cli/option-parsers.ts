import { InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { longestTimerMs } from '../core/limits.ts';
import { checkStoreLocation, defaultResultsPath, isPostgresLocation } from '../store/index.ts';

/**
 * Commander argument parsers. A thrown InvalidArgumentError becomes
 * "option '--count <n>' argument 'abc' is invalid. <message>", so the messages here say the fix.
 */
export function parseNonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError(`expected a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, e.g. 7`);
  }
  return Number(value);
}

/** A timeout, time limit or lease in ms: at least 1, and short enough for a Node timer (about 24.8 days). */
export function parseMilliseconds(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > longestTimerMs) {
    throw new InvalidArgumentError(`expected milliseconds from 1 to ${longestTimerMs} (24.8 days), e.g. 60000`);
  }
  return Number(value);
}

/** A budget of time in ms that may be 0 (none at all): the run's retry wait. */
export function parseMillisecondsBudget(value: string): number {
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('expected milliseconds, a whole number from 0 (no waiting), e.g. 1800000 (30 minutes)');
  }
  return Number(value);
}

/** A sampling temperature: no provider takes a negative one. */
export function parseTemperature(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new InvalidArgumentError('expected a number >= 0, e.g. 0 or 0.7');
  return number;
}

/** A TCP port on 127.0.0.1: 0 (the system picks a free one) to 65535. */
export function parsePort(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > 65535) throw new InvalidArgumentError('expected a port from 1 to 65535, or 0 for a free one');
  return Number(value);
}

export function parsePositiveInteger(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, e.g. 10`);
  }
  return Number(value);
}

/** The parsers of flags meant to be given more than once: every other flag with a value is refused twice. */
const repeatableParsers = new WeakSet<object>();

/** Marks `parse` as the parser of a flag meant to repeat (see refuse-repeated-flags.ts). */
export function repeatable<T extends (...args: never[]) => unknown>(parse: T): T {
  repeatableParsers.add(parse);
  return parse;
}

export function isRepeatable(parse: object): boolean {
  return repeatableParsers.has(parse);
}

/** `--transform id[:k=v,...]`, repeatable, applied in the order given. */
export const collectTransform = repeatable((value: string, previous: string[] = []): string[] => [...previous, value]);

/** Repeatable `--set name=value`, collected into a record; a name set twice is refused, as a flag given twice is. */
export const collectSetting = repeatable((value: string, previous: Record<string, string> = {}): Record<string, string> => {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError(`expected name=value, e.g. --set ${value || 'name'}=<value> (see 'toolforge suites' for each suite's knobs)`);
  const name = value.slice(0, equals).trim();
  if (Object.hasOwn(previous, name)) {
    throw new InvalidArgumentError(`--set ${name} was given twice (${previous[name]}, then ${value.slice(equals + 1)}); set it once (the command would silently use only the last)`);
  }
  return { ...previous, [name]: value.slice(equals + 1) };
});

/** A SQLite path is resolved against the working folder; a postgres:// address is kept as given. */
export function resolveDatabasePath(database: string | undefined, cwd: string): string {
  if (database !== undefined) checkStoreLocation(database);
  if (database !== undefined && isPostgresLocation(database)) return database;
  return resolve(cwd, database ?? defaultResultsPath);
}

export function parseText(value: string): string {
  return value;
}

/** The flag of a parsed option's key, as a message names it: `maxOutputTokens` -> `--max-output-tokens`. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** A model name (`--agent-name`, `--client-name`): it must keep a letter or digit once made a model id. */
export function parseModelName(value: string): string {
  if (!/[a-z0-9]/i.test(value)) throw new InvalidArgumentError('expected a name with a letter or digit, e.g. my-agent (it becomes the model mcp/<name>)');
  return value;
}

/** An http(s) URL, e.g. for --base-url. */
export function parseHttpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL, e.g. http://127.0.0.1:8000/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(`expected an http(s) URL, not ${url.protocol}, e.g. http://127.0.0.1:8000/v1`);
  return value;
}

/** A rate as a fraction (0.8) or a percentage (80%). */
export function parseRate(value: string): number {
  const trimmed = value.trim();
  const isPercent = trimmed.endsWith('%');
  const number = Number(isPercent ? trimmed.slice(0, -1) : trimmed);
  const rate = isPercent ? number / 100 : number;
  if (trimmed === '' || trimmed === '%' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw new InvalidArgumentError('expected a pass rate between 0 and 1 (e.g. 0.8) or a percentage (e.g. 80%)');
  }
  return rate;
}

/** A repeatable flag whose values are collected in order (`--task-id a --task-id b`). */
export const collectValues = repeatable((value: string, previous: string[] = []): string[] => [...previous, value]);
