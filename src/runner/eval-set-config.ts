/**
 * An eval set: one file (JSON or YAML) naming the models (with their endpoints and settings), the suites with
 * their fixed knobs, knob grids, modes and transforms, and the run settings. `runEvalSet` runs the cross product
 * as one group of runs, resumable as a whole by running the same file again.
 */
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { repeatedJsonKey } from '../core/repeated-json-key.ts';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../core/errors.ts';
import { canonicalJson } from '../core/json.ts';
import { modeSchema } from '../core/mode.ts';
import { describeIssue } from '../store/run-jsonl.ts';
import { readTextFileSync } from '../core/read-text-file.ts';
import { fileProblem } from '../core/file-problem.ts';
import { lineKind, otherFileKind } from '../core/file-kind.ts';

const knobValueSchema = z.union([z.string(), z.number(), z.boolean()]);

const modelSchema = z.strictObject({
  /** A model reference as on the command line: `openai/gpt-4.1`, `builtin/planner`, `replay/out.jsonl`... */
  ref: z.string().min(1),
  /** This model's endpoint (its own: a key is never sent to another model's endpoint). */
  baseUrl: z.url().optional(),
  temperature: z.number().finite().min(0).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  strictTools: z.boolean().optional(),
});

const suiteSchema = z.strictObject({
  id: z.string().min(1),
  /** Knobs held fixed (`--set`). */
  set: z.record(z.string(), knobValueSchema).default({}),
  /** Knobs swept: every combination is a point of the grid. */
  grid: z.record(z.string(), z.array(knobValueSchema).min(1)).default({}),
  /** Modes to run (default: each task's first mode). */
  modes: z.array(modeSchema).min(1).optional(),
  /** Transform chains, each run as its own variant (`[]` = the tasks as generated); e.g. [[], ["rename-tools"]]. */
  transforms: z.array(z.array(z.string().min(1))).min(1).optional(),
  count: z.number().int().positive().optional(),
});

export const evalSetSchema = z.strictObject({
  /** Names the group of runs (default: the file's name). */
  name: z.string().regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, ".", "_" and "-"').optional(),
  seed: z.number().int().nonnegative().default(0),
  count: z.number().int().positive().optional(),
  trials: z.number().int().positive().default(1),
  concurrency: z.number().int().positive().optional(),
  models: z.array(modelSchema).min(1),
  suites: z.array(suiteSchema).min(1),
});

export type EvalSet = z.infer<typeof evalSetSchema>;
export type EvalSetModel = z.infer<typeof modelSchema>;
export type EvalSetSuite = z.infer<typeof suiteSchema>;

/** Reads and validates an eval-set file; every problem names the field and the fix. */
export function readEvalSetFile(path: string): { evalSet: EvalSet; text: string } {
  let text: string;
  try {
    text = readTextFileSync(path);
  } catch (error) {
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('input.unreadable', `cannot read the eval set ${path}: ${fileProblem(path, error)}`, { fix: 'pass the path of a toolforge.config.json or .yaml file', cause: error });
  }
  let raw: unknown;
  try {
    raw = ['.yaml', '.yml'].includes(extname(path).toLowerCase()) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    checkIsEvalSet(path, text);
    throw new ConfigError('input.invalid', `the eval set ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${errorMessage(error)}`, {
      fix: 'fix the syntax at the position named above',
      cause: error,
    });
  }
  const repeated = ['.yaml', '.yml'].includes(extname(path).toLowerCase()) ? undefined : repeatedJsonKey(text);
  if (repeated !== undefined) {
    throw new ConfigError('input.invalid', `the eval set ${path} gives the key '${repeated.key}' twice in one object (line ${repeated.line}, column ${repeated.column}): only the last would be used`, {
      fix: `give '${repeated.key}' once in that object`,
    });
  }
  const parsed = evalSetSchema.safeParse(raw);
  if (!parsed.success) {
    checkIsEvalSet(path, text);
    throw new ConfigError('input.invalid', `the eval set ${path} is invalid: ${describeIssue(parsed.error)}`, {
      fix: 'see the eval-set format in the README (models: [{ref, baseUrl?, temperature?...}], suites: [{id, set?, grid?, modes?, transforms?, count?}])',
    });
  }
  // As on the command line (--base-url): an endpoint given to a model that calls none would be ignored.
  const local = parsed.data.models.findIndex((model) => model.baseUrl !== undefined && /^(builtin|replay)\//.test(model.ref));
  if (local >= 0) {
    const { ref } = parsed.data.models[local];
    throw new ConfigError('input.invalid', `the eval set ${path} gives models[${local}].baseUrl to '${ref}', which ${ref.startsWith('builtin/') ? 'runs in this process' : 'reads stored outputs'} and calls no endpoint`, {
      fix: `drop models[${local}].baseUrl, or give a provider model, e.g. {ref: openai-compatible/<model>, baseUrl: <url>}`,
    });
  }
  // One reference may be listed with different endpoints or settings (two servers behind openai-compatible/<name>,
  // two temperatures): each is its own run. The same entry twice would run the same thing twice.
  const models = parsed.data.models.map((model) => canonicalJson(model));
  const twice = models.findIndex((model, index) => models.indexOf(model) !== index);
  if (twice >= 0) {
    throw new ConfigError('input.invalid', `the eval set ${path} lists model '${parsed.data.models[twice].ref}' twice with the same settings (models[${models.indexOf(models[twice])}] and models[${twice}])`, {
      fix: 'list each model once, or give the two entries different baseUrl, temperature, maxOutputTokens or strictTools',
    });
  }
  return { evalSet: parsed.data, text };
}

const evalSetWhat = 'an eval set';
const evalSetExpected = '--config takes an eval set: one JSON or YAML document with models: and suites: (see "Eval sets" in the README)';

/**
 * A file of another kind given to --config (a tasks file, outputs to replay, an export: all JSON Lines) fails as YAML
 * or as an eval set at some field, which says nothing of what went wrong: say what the file is and what takes it.
 */
function checkIsEvalSet(path: string, text: string): void {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const values: unknown[] = [];
  for (const line of lines.slice(0, 2)) {
    try {
      values.push(JSON.parse(line) as unknown);
    } catch {
      break;
    }
  }
  if (values.length === 0) return;
  const kind = lineKind(values[0]);
  if (kind !== undefined) {
    // otherFileKind names any kind but the one expected; an eval set is none of them, so any other kind stands in.
    const other = otherFileKind(path, values[0], kind === 'tasks' ? 'replay' : 'tasks', evalSetWhat);
    if (other) throw new ConfigError('input.invalid', `--config ${path} line 1: ${other.problem}`, { fix: `${other.fix}; ${evalSetExpected}` });
  }
  // Two lines that are each a JSON value: JSON Lines, whatever they hold. (One JSON document spread over lines is not.)
  if (values.length === 2) {
    throw new ConfigError('input.invalid', `--config ${path}: this is JSON Lines (a JSON value on each line), not ${evalSetWhat}`, {
      fix: evalSetExpected,
    });
  }
}
