import { InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { defaultResultsPath } from '../store/index.ts';

/**
 * Commander argument parsers. A thrown InvalidArgumentError becomes
 * "option '--count <n>' argument 'abc' is invalid. <message>", so the messages here say the fix.
 */
export function parseNonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a whole number >= 0, e.g. 7');
  return Number(value);
}

export function parsePositiveInteger(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number >= 1, e.g. 10');
  return Number(value);
}

export function parseFiniteNumber(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new InvalidArgumentError('expected a number, e.g. 0.7');
  return number;
}

/** Repeatable `--set name=value`, collected into a record (a later value for a name wins). */
/** `--transform id[:k=v,...]`, repeatable, applied in the order given. */
export function collectTransform(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function collectSetting(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const equals = value.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError(`expected name=value, e.g. --set ${value || 'name'}=<value> (see 'toolforge suites' for each suite's knobs)`);
  return { ...previous, [value.slice(0, equals).trim()]: value.slice(equals + 1) };
}

export function resolveDatabasePath(database: string | undefined, cwd: string): string {
  return resolve(cwd, database ?? defaultResultsPath);
}
