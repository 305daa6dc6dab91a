/**
 * Where the public data sets (NESTFUL, WAPIIBench, StableToolBench) live on this machine. One resolver
 * for every reader, in this order:
 * 1. `$TOOLFORGE_DATA` (alias: the older `$TOOLFORGE_SHARED_DATA`): when set, it is the only place looked
 *    in, so a user who names a folder never gets data from somewhere else;
 * 2. `../shared/data` beside the repository;
 * 3. the user's cache, `$XDG_CACHE_HOME/toolforge/data` or `~/.cache/toolforge/data`, where
 *    `toolforge data fetch` writes.
 * Each data set is looked up on its own (`<root>/<name>/`), so one may come from the cache and another
 * from `../shared/data`. Data is read at run time, never copied into the repository.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './errors.ts';

/** The repository root (the folder holding package.json). */
export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export type EnvironmentVariables = Readonly<Record<string, string | undefined>>;

export type DataRoot =
  | { type: 'variable'; variable: 'TOOLFORGE_DATA' | 'TOOLFORGE_SHARED_DATA'; path: string }
  | { type: 'beside-repository'; path: string }
  | { type: 'cache'; path: string };

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}

/** `$XDG_CACHE_HOME/toolforge/data`, else `~/.cache/toolforge/data` (XDG base directory rules: a relative XDG path is ignored). */
export function cacheDataDirectory(env: EnvironmentVariables = process.env): string {
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  const base = xdg && xdg.startsWith('/') ? xdg : join(nonEmpty(env.HOME) ?? homedir(), '.cache');
  return join(base, 'toolforge', 'data');
}

/** The folders looked in, first match wins. */
export function dataRoots(env: EnvironmentVariables = process.env): DataRoot[] {
  const explicit = nonEmpty(env.TOOLFORGE_DATA);
  if (explicit) return [{ type: 'variable', variable: 'TOOLFORGE_DATA', path: resolve(explicit) }];
  const alias = nonEmpty(env.TOOLFORGE_SHARED_DATA);
  if (alias) return [{ type: 'variable', variable: 'TOOLFORGE_SHARED_DATA', path: resolve(alias) }];
  return [
    { type: 'beside-repository', path: join(repositoryRoot, '..', 'shared', 'data') },
    { type: 'cache', path: cacheDataDirectory(env) },
  ];
}

/** Where `toolforge data fetch` writes: the named folder when `$TOOLFORGE_DATA` is set, else the cache. */
export function dataWriteDirectory(env: EnvironmentVariables = process.env): string {
  const [first] = dataRoots(env);
  return first && first.type === 'variable' ? first.path : cacheDataDirectory(env);
}

export function describeDataRoot(root: DataRoot): string {
  if (root.type === 'variable') return `$${root.variable} (${root.path})`;
  if (root.type === 'beside-repository') return `../shared/data beside the repository (${root.path})`;
  return `the cache (${root.path})`;
}

/** The folder of data set `name` and the root it was found in, or undefined when no root holds it. */
export function locateDataset(name: string, env: EnvironmentVariables = process.env): { directory: string; root: DataRoot } | undefined {
  for (const root of dataRoots(env)) {
    const directory = join(root.path, name);
    if (existsSync(directory)) return { directory, root };
  }
  return undefined;
}

/**
 * A path inside data set `name`. When no root holds the data set, the path under the first root is
 * returned (it does not exist); readers check with `hasDataset` or report `missingDataError`.
 */
export function datasetPath(name: string, ...parts: string[]): string {
  const found = locateDataset(name);
  const directory = found ? found.directory : join(dataRoots()[0]!.path, name);
  return join(directory, ...parts);
}

export function hasDataset(name: string, ...parts: string[]): boolean {
  return existsSync(datasetPath(name, ...parts));
}

/** The error every reader raises for absent data: where it looked and the command that gets it. */
export function missingDataError(name: string, what: string, options: { alternative?: string; env?: EnvironmentVariables } = {}): ConfigError {
  const roots = dataRoots(options.env);
  const notFolder = variableRootNotFolder(options.env);
  if (notFolder) return notFolder(`${what} finds no ${name} data set there`);
  const looked = roots.map((root) => join(root.path, name)).join(', ');
  const alternative = options.alternative ? `; or ${options.alternative}` : '';
  return new ConfigError('data.missing', `${what} needs the ${name} data set, which is not on this machine (looked in ${looked})`, {
    fix: `run \`toolforge data fetch ${name}\` (downloads it into ${dataWriteDirectory(options.env)}), or set $TOOLFORGE_DATA to a folder holding ${name}/${alternative}`,
  });
}

/**
 * When `$TOOLFORGE_DATA` names something that is not a folder (a data file, say): a maker of the error that says so,
 * since fetching into it or looking in it cannot work. Undefined when it is a folder, absent or unset.
 */
export function variableRootNotFolder(env: EnvironmentVariables = process.env): ((consequence: string) => ConfigError) | undefined {
  const [first] = dataRoots(env);
  if (!first || first.type !== 'variable' || !existsSync(first.path) || statSync(first.path).isDirectory()) return undefined;
  return (consequence) => new ConfigError('data.missing', `$${first.variable} is ${first.path}, a file, not a folder: ${consequence}`, {
    fix: `set $${first.variable} to the folder that holds the data sets' folders (nestful/, wapiibench/, ...), or to a new folder and run \`toolforge data fetch <name>\`; a single data file goes in --set data=<file>`,
  });
}
