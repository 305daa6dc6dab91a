/**
 * Reads NESTFUL data files: v2 samples (`sample_id, input, output, tools, gold_answer`, a JSON list or
 * JSONL, also the official result files whose output/tools/gold_answer are JSON strings) and the v1
 * release (`{input, output}` lists whose tools live in the sibling `*-spec.json`). Every record is
 * checked with zod; errors name the record and the field.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { z } from 'zod';
import { otherFileKind } from '../../core/file-kind.ts';
import { ConfigError } from '../../core/errors.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import { datasetPath, locateDataset, missingDataError } from '../../core/data-location.ts';
import { findDataset } from '../../datasets/dataset-manifest.ts';
import { isFloatLiteral, markFloat, parseLenientJson } from './lenient-json.ts';
import type { NestfulFlavour, NestfulSample, NestfulTool } from './nestful-sample.ts';
import { pythonJsonDumps } from './python-format.ts';
import { jsonListFileItems } from '../../core/json-list-file.ts';
import { firstNonBlankCharacter, readLinesSync } from '../../core/read-lines.ts';
import { fileProblem } from '../../core/file-problem.ts';
import { formatFieldPath } from '../../core/field-path.ts';

const callSchema = z.object({
  name: z.string().min(1),
  label: z.string().optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const toolSchema = z.object({
  name: z.string().min(1),
  description: z.string().default(''),
  parameters: z.record(z.string(), z.unknown()).optional(),
  output_parameters: z.record(z.string(), z.unknown()).optional(),
});

const v2RecordSchema = z.object({
  sample_id: z.union([z.string().min(1), z.number()]),
  input: z.string(),
  output: z.array(callSchema),
  tools: z.array(toolSchema),
  gold_answer: z.unknown(),
});

const v1RecordSchema = z.object({ input: z.string(), output: z.array(callSchema) });

const v1SpecSchema = z.object({
  name: z.string().min(1),
  description: z.string().default(''),
  parameters: z.record(z.string(), z.unknown()).optional(),
  query_parameters: z.record(z.string(), z.unknown()).optional(),
  path_parameters: z.record(z.string(), z.unknown()).optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  output_parameters: z.record(z.string(), z.unknown()).optional(),
});

/** Where `--set data=<path>` points: the path as given, else relative to the shared NESTFUL data folder. */
export function resolveDataPath(path: string): string {
  if (isAbsolute(path) || existsSync(path)) return resolve(path);
  if (!locateDataset('nestful')) throw missingDataError('nestful', `nestful data file '${path}'`, { alternative: 'pass a NESTFUL file by its path: --set data=<file>' });
  const shared = datasetPath('nestful', path);
  if (existsSync(shared)) return shared;
  // A file the data set should hold is missing (a broken download): the command that repairs the copy. Any other
  // path gets an example that is there: the benchmark's samples file, not the in-context examples file (it holds the
  // prompt's examples, not samples to run).
  const example = datasetPath('nestful', 'data_v1', 'executable', 'executable-data.json');
  const normalized = path.split(sep).join('/').replace(/^\.\//, '');
  const ofDataset = findDataset('nestful')?.files.some((file) => file.path === normalized) === true;
  throw new ConfigError('input.unreadable', `nestful data file '${path}' does not exist`, {
    fix: !ofDataset && existsSync(example) ? `--set data=<a NESTFUL .json/.jsonl file>, e.g. --set data=${example}`
      : `--set data=<a NESTFUL .json/.jsonl file>; the NESTFUL copy in ${datasetPath('nestful')} lacks files (toolforge data verify nestful lists them): run toolforge data fetch nestful`,
  });
}

type SourceRecord = { record: JsonValue; where: string };

function unreadable(path: string, error: unknown): ConfigError {
  return new ConfigError('input.unreadable', `cannot read nestful data file '${path}': ${fileProblem(path, error)}`, {
    fix: 'check the path given to --set data=',
  });
}

/**
 * The records of a data file, one at a time: a JSONL file is read line by line, a JSON list item by item, so a
 * 100,000-sample file is never held whole. The first `skip` records are passed over unread (not even parsed). Which
 * of the two a file is, its first character that is not whitespace says: '[' starts a JSON list.
 */
function* streamRecords(path: string, skip: number): Generator<SourceRecord> {
  let first: string | undefined;
  let lines: Generator<string>;
  try {
    first = firstNonBlankCharacter(path);
    lines = readLinesSync(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(path, error);
  }
  if (first === '[') {
    lines.return(undefined);
    yield* streamListRecords(path, skip);
    return;
  }
  let lineNumber = 0;
  let records = 0;
  for (const line of lines) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    records += 1;
    if (records <= skip) continue;
    const parsed = parseLenientJson(line);
    if (!parsed.ok) {
      throw new ConfigError('input.invalid', `${path} line ${lineNumber}: not JSON (${parsed.error})`, {
        fix: 'each line of a JSONL file must be one NESTFUL sample object',
      });
    }
    yield { record: parsed.value, where: `${path} line ${lineNumber}` };
  }
}

const listFix = 'give a JSON list of NESTFUL samples or a JSONL file with one sample per line';

/** A JSON list file's items, each parsed only when reached (and not at all before `skip`). */
function* streamListRecords(path: string, skip: number): Generator<SourceRecord> {
  const errors = {
    notAList: (reason: string) => new ConfigError('input.invalid', `${path}: not a JSON list of samples (${reason})`, { fix: listFix }),
    unreadable: (error: unknown) => unreadable(path, error),
  };
  for (const { index, text } of jsonListFileItems(path, errors)) {
    if (index < skip) continue;
    const parsed = parseLenientJson(text);
    if (!parsed.ok) throw new ConfigError('input.invalid', `${path} item ${index}: not JSON (${parsed.error})`, { fix: listFix });
    yield { record: parsed.value, where: `${path} item ${index}` };
  }
}

/** Result files hold output/tools/gold_answer as JSON strings; sample files hold them as values. */
function unstringify(record: JsonObject, key: string): void {
  const value = record[key];
  if (typeof value !== 'string') return;
  const parsed = parseLenientJson(value);
  if (!parsed.ok) return;
  record[key] = parsed.value;
  if (parsed.isFloat) markFloat(record, key);
}

function invalid(where: string, error: z.ZodError): ConfigError {
  const issue = error.issues[0];
  const field = formatFieldPath(issue?.path ?? []) || '(record)';
  return new ConfigError('input.invalid', `${where}: field '${field}' ${issue?.message ?? 'is invalid'}`, {
    fix: 'a NESTFUL v2 sample has sample_id, input, output [{name, label, arguments}], tools [{name, description, parameters, output_parameters}], gold_answer',
  });
}

function flavourOf(output: readonly JsonValue[]): NestfulFlavour {
  const labels = output.flatMap((call) => (isJsonObject(call) && typeof call.label === 'string' ? [call.label] : []));
  return labels.some((label) => /^\$?var_\d+$/.test(label)) ? 'math' : 'code';
}

function toNestfulTool(tool: z.infer<typeof toolSchema>): NestfulTool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: (tool.parameters ?? {}) as JsonObject,
    output_parameters: (tool.output_parameters ?? {}) as JsonObject,
  };
}

function readV1Tools(dataPath: string): NestfulTool[] {
  const specPath = join(dirname(dataPath), basename(dataPath).replace(/-data(\.jsonl?)$/, '-spec$1'));
  if (specPath === dataPath || !existsSync(specPath)) return [];
  return [...streamRecords(specPath, 0)].map(({ record, where }) => {
    const parsed = v1SpecSchema.safeParse(record);
    if (!parsed.success) throw invalid(where, parsed.error);
    const spec = parsed.data;
    return {
      name: spec.name,
      description: spec.description,
      parameters: { ...spec.path_parameters, ...spec.query_parameters, ...spec.parameters, ...spec.arguments } as JsonObject,
      output_parameters: (spec.output_parameters ?? {}) as JsonObject,
    };
  });
}

/** Reads every sample of a NESTFUL data file. */
export function importNestfulSamples(path: string): NestfulSample[] {
  return [...streamNestfulSamples(path)];
}

/** The samples of a NESTFUL data file one at a time, in file order (JSONL files read line by line), from sample `from`. */
export function* streamNestfulSamples(path: string, from = 0): Generator<NestfulSample> {
  const dataPath = resolveDataPath(path);
  let v1Tools: NestfulTool[] | undefined;
  const fileStem = basename(dataPath).replace(/\.jsonl?$/, '');
  let index = from - 1;
  for (const { record, where } of streamRecords(dataPath, from)) {
    index += 1;
    if (!isJsonObject(record)) {
      throw new ConfigError('input.invalid', `${where}: a sample must be a JSON object`, { fix: 'one sample object per item' });
    }
    const other = index === from ? otherFileKind(dataPath, record, 'nestful-data', 'a NESTFUL data file') : undefined;
    if (other) throw new ConfigError('input.invalid', `${where}: ${other.problem}`, { fix: other.fix });
    // Validate with zod but keep the original objects: they carry the parser's float-literal marks.
    const isV2 = 'sample_id' in record || 'tools' in record || 'gold_answer' in record;
    if (isV2) {
      if (typeof record.output === 'string') for (const key of ['output', 'tools', 'gold_answer']) unstringify(record, key);
      const parsed = v2RecordSchema.safeParse(record);
      if (!parsed.success) throw invalid(where, parsed.error);
      const output = record.output as JsonValue[];
      yield {
        sampleId: String(parsed.data.sample_id),
        input: parsed.data.input,
        flavour: flavourOf(output),
        outputJson: pythonJsonDumps(output),
        goldAnswerJson: pythonJsonDumps((record.gold_answer ?? null), isFloatLiteral(record, 'gold_answer')),
        tools: parsed.data.tools.map(toNestfulTool),
      };
      continue;
    }
    const parsed = v1RecordSchema.safeParse(record);
    if (!parsed.success) throw invalid(where, parsed.error);
    v1Tools ??= readV1Tools(dataPath);
    yield {
      sampleId: `${fileStem}/${index}`,
      input: parsed.data.input,
      flavour: 'v1',
      outputJson: pythonJsonDumps(record.output as JsonValue[]),
      goldAnswerJson: null,
      tools: v1Tools,
    };
  }
}
