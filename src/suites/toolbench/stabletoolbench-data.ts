/**
 * Reads StableToolBench's solvable queries (`solvable_queries/test_instruction/<group>.json`, 765
 * queries in six groups), each validated with zod; bad files name the item and field.
 */
import { z } from 'zod';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { JsonValue } from '../../core/json.ts';
import { datasetPath } from '../../core/data-location.ts';
import { readTextFileSync } from '../../core/read-text-file.ts';

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
  let raw: unknown;
  try {
    raw = JSON.parse(readTextFileSync(path));
  } catch (error) {
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('input.unreadable', `cannot read StableToolBench query file '${path}': ${errorMessage(error)}`, {
      fix: 'pass solvable_queries/test_instruction/<group>.json from StableToolBench',
    });
  }
  if (!Array.isArray(raw)) throw new ConfigError('input.invalid', `'${path}' is not a list of queries`, { fix: 'use a StableToolBench test_instruction file' });
  return raw.map((item, index) => {
    const parsed = querySchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError('input.invalid', `'${path}' item ${index}: field '${issue.path.join('.')}' ${issue.message}`, {
        fix: 'each item needs query, query_id and api_list (category_name, tool_name, api_name, parameters)',
      });
    }
    return { group, queryId: parsed.data.query_id, query: parsed.data.query, relevantApis: parsed.data['relevant APIs'], apis: parsed.data.api_list };
  });
}
