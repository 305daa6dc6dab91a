/**
 * Reads StableToolBench's solvable queries (`solvable_queries/test_instruction/<group>.json`, 765
 * queries in six groups), read item by item and each validated with zod; bad files name the item and field.
 */
import { z } from 'zod';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import { linesInsteadOfJsonDocument } from '../../core/file-kind.ts';
import type { JsonValue } from '../../core/json.ts';
import { datasetPath } from '../../core/data-location.ts';
import { readTextFileOr } from '../../core/read-text-file.ts';
import type { JsonListFileErrors } from '../../core/json-list-file.ts';
import { jsonListFileItems, startsWithJsonList } from '../../core/json-list-file.ts';
import { fileProblem } from '../../core/file-problem.ts';
import { formatFieldPath } from '../../core/field-path.ts';

export const queryGroups = ['G1_category', 'G1_instruction', 'G1_tool', 'G2_category', 'G2_instruction', 'G3_instruction'] as const;
export type QueryGroup = typeof queryGroups[number];

const jsonValue: z.ZodType<JsonValue> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]));

const parameterSchema = z.object({
  name: z.string(),
  type: z.string().default('STRING'),
  description: z.string().nullish().transform((value) => value ?? ''),
  default: jsonValue.optional(),
});

const apiSchema = z.object({
  category_name: z.string(),
  tool_name: z.string(),
  api_name: z.string(),
  api_description: z.string().nullish().transform((value) => value ?? ''),
  required_parameters: z.array(parameterSchema).default([]),
  optional_parameters: z.array(parameterSchema).default([]),
  method: z.string().default('GET'),
  template_response: jsonValue.optional(),
});

const querySchema = z.object({
  query: z.string(),
  query_id: z.union([z.number(), z.string()]).transform(String),
  'relevant APIs': z.array(z.tuple([z.string(), z.string()])).default([]),
  api_list: z.array(apiSchema),
});

export type StableParameter = z.infer<typeof parameterSchema>;
export type StableApi = z.infer<typeof apiSchema>;
export type StableQuery = { group: string; queryId: string; query: string; relevantApis: [string, string][]; apis: StableApi[] };

export function solvableQueriesPath(group: QueryGroup): string {
  return datasetPath('stabletoolbench', 'solvable_queries', 'test_instruction', `${group}.json`);
}

export function importSolvableQueries(path: string, group: string): StableQuery[] {
  return [...streamSolvableQueries(path, group)];
}

const fileFix = 'pass solvable_queries/test_instruction/<group>.json from StableToolBench';

/**
 * The file's queries one at a time, read item by item (a large query file is never held whole); each is checked when
 * it is reached, so a bad item fails after the good ones before it.
 */
export function* streamSolvableQueries(path: string, group: string): Generator<StableQuery> {
  const errors: JsonListFileErrors = { notAList: (reason) => notAList(path, reason), unreadable: (error) => unreadable(path, error) };
  if (!startsWithJsonList(path, errors)) {
    // Not a list: read whole, so JSON that is not a list and text that is not JSON say which they are.
    const text = readTextFileOr(path, (error) => unreadable(path, error));
    try {
      JSON.parse(text);
    } catch (error) {
      const lines = linesInsteadOfJsonDocument(path, text, 'toolbench-data', 'a StableToolBench query file');
      if (lines) throw new ConfigError('input.invalid', `'${path}': ${lines.problem}`, { fix: lines.fix });
      throw unreadable(path, error);
    }
    throw notAList(path, undefined);
  }
  for (const { index, text } of jsonListFileItems(path, errors)) {
    let item: unknown;
    try {
      item = JSON.parse(text) as unknown;
    } catch (error) {
      throw new ConfigError('input.invalid', `'${path}' item ${index}: not JSON (${errorMessage(error)})`, { fix: itemFix });
    }
    const parsed = querySchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError('input.invalid', `'${path}' item ${index}: field '${formatFieldPath(issue.path)}' ${issue.message}`, { fix: itemFix });
    }
    yield { group, queryId: parsed.data.query_id, query: parsed.data.query, relevantApis: parsed.data['relevant APIs'], apis: parsed.data.api_list };
  }
}

const itemFix = 'each item needs query, query_id and api_list (category_name, tool_name, api_name, parameters)';

function notAList(path: string, reason: string | undefined): ConfigError {
  return new ConfigError('input.invalid', `'${path}' is not a list of queries${reason === undefined ? '' : ` (${reason})`}`, { fix: 'use a StableToolBench test_instruction file' });
}

function unreadable(path: string, error: unknown): ConfigError {
  return new ConfigError('input.unreadable', `cannot read StableToolBench query file '${path}': ${fileProblem(path, error)}`, { fix: fileFix });
}
