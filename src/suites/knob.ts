import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { portableDataset } from '../core/portable-path.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';

/** A difficulty or data knob a suite accepts through `--set name=value`. */
export type Knob =
  | { type: 'integer'; name: string; description: string; default: number; min?: number; max?: number }
  | { type: 'number'; name: string; description: string; default: number; min?: number; max?: number }
  | { type: 'boolean'; name: string; description: string; default: boolean }
  /**
   * `path`: the value names a file or folder, relative to the working folder. A task may record it in another form
   * (absolute, or portable: core/portable-path.ts); a run compares what the two name, not their text. `created-folder`:
   * a folder the suite writes (a cache), made when missing, so a relative value always means the folder it was given from.
   */
  | { type: 'string'; name: string; description: string; default: string | null; path?: 'file' | 'folder' | 'created-folder' }
  | { type: 'enum'; name: string; description: string; default: string; values: readonly string[] };

/**
 * Parses `--set` strings (or already-typed values from a task file) against a suite's knobs and fills
 * defaults. Unknown names and bad values throw a ConfigError naming the knob and what it accepts.
 */
export function resolveKnobs(
  suiteId: string,
  knobs: readonly Knob[],
  raw: Record<string, string | JsonValue>,
  /**
   * `flag`: where the values came from, for the fix: a flag, or an eval-set file's `set:`/`grid:` (default --set).
   * `directory`: a path knob's relative value naming something in this folder (the command's working folder, an eval
   * set's folder) is kept absolute, so the tasks, the run's record and a resume from any folder name the same file.
   */
  options: { flag?: KnobSource; directory?: string } = {},
): JsonObject {
  const byName = new Map(knobs.map((knob) => [knob.name, knob]));
  for (const name of Object.keys(raw)) {
    if (!byName.has(name)) {
      throw new ConfigError('config.unknown-knob', `suite '${suiteId}' has no knob '${name}'`, {
        fix: `use one of: ${knobs.map((knob) => knob.name).join(', ') || '(none)'} — see 'toolforge suites'`,
      });
    }
  }
  const resolved: JsonObject = {};
  for (const knob of knobs) {
    const value = raw[knob.name];
    const parsed = value === undefined ? knob.default : parseKnobValue(suiteId, knob, value, options.flag ?? '--set');
    resolved[knob.name] = value !== undefined && options.directory !== undefined && knob.type === 'string' && knob.path !== undefined && typeof parsed === 'string'
      ? fromFolder(options.directory, parsed, knob.path === 'created-folder')
      : parsed;
  }
  return resolved;
}

export type KnobSource = '--set' | '--grid' | 'eval-set';

/**
 * A path from `directory` made absolute when something is there (or always, for a folder the suite creates). Otherwise
 * it is left as given, for the suite to read as it reads any value (nestful takes `data_v2/...` from its data set) or to
 * refuse naming it as the user wrote it.
 */
function fromFolder(directory: string, path: string, created: boolean): string {
  if (isAbsolute(path) || portableDataset(path) !== undefined) return path;
  const absolute = resolve(directory, path);
  return created || existsSync(absolute) ? absolute : path;
}

function parseKnobValue(suiteId: string, knob: Knob, value: string | JsonValue, flag: KnobSource): JsonValue {
  const text = typeof value === 'string' ? value.trim() : JSON.stringify(value);
  const fail = (accepts: string): never => {
    throw new ConfigError('config.invalid-knob', `suite '${suiteId}' knob '${knob.name}' cannot be '${text}'`, {
      // The fix names the flag the value came through: a sweep's values are a --grid list.
      fix: flag === '--grid' ? `--grid ${knob.name}=<v1>,<v2>,... (each: ${accepts})`
        : flag === 'eval-set' ? `give ${knob.name} a value that is: ${accepts}`
          : `--set ${knob.name}=<${accepts}>`,
    });
  };
  switch (knob.type) {
    case 'integer':
    case 'number': {
      const number = typeof value === 'number' ? value : Number(text);
      if (text === '' || !Number.isFinite(number)) return fail(knob.type);
      if (knob.type === 'integer' && !Number.isInteger(number)) return fail('integer');
      const range = `${knob.type} in [${knob.min ?? '-inf'}, ${knob.max ?? 'inf'}]`;
      if (knob.min !== undefined && number < knob.min) return fail(range);
      if (knob.max !== undefined && number > knob.max) return fail(range);
      return number;
    }
    case 'boolean':
      if (value === true || text === 'true' || text === '1') return true;
      if (value === false || text === 'false' || text === '0') return false;
      return fail('true|false');
    case 'string':
      // `--set data=$FILE` with FILE unset: an empty value would read as the default (for data, generated samples).
      if (typeof value === 'string' && text === '') {
        throw new ConfigError('config.invalid-knob', `suite '${suiteId}' knob '${knob.name}' is empty`, {
          fix: `give ${knob.name} a value${flag === 'eval-set' ? '' : ` (${flag} ${knob.name}=<value>)`}, or leave it out for its default (${knob.default ?? 'unset'})`,
        });
      }
      return typeof value === 'string' ? value : text;
    case 'enum':
      if (!knob.values.includes(text)) return fail(knob.values.join('|'));
      return text;
  }
}

/** Two values a knob accepts, for a fix's example (`--grid core=10,20`): its default and one more in range. */
export function exampleKnobValues(knob: Knob): string[] {
  switch (knob.type) {
    case 'integer':
    case 'number': {
      const doubled = knob.default === 0 ? 1 : knob.default * 2;
      const other = knob.max === undefined || doubled <= knob.max ? doubled : Math.max(knob.min ?? -Infinity, knob.default - 1);
      return other === knob.default ? [String(knob.default)] : [String(knob.default), String(other)];
    }
    case 'boolean':
      return ['false', 'true'];
    case 'enum':
      return knob.values.slice(0, 2);
    case 'string':
      return [knob.default ?? '<value>'];
  }
}
