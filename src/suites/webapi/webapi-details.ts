/**
 * What a webapi score keeps (Score.details, the suite's detailsSchema): the API, the sample's statistics (the
 * summary rebuilds Table V from them), the comparison of the captured request with the expected one when there was
 * a request (the viewer shows it), and the program that ran.
 */
import { z } from 'zod';
import type { ArgumentJudgement, RequestComparison } from './compare-request.ts';
import { configFields } from './request-config.ts';
import type { SampleStatistics } from './sample-statistics.ts';
import { countNames } from './sample-statistics.ts';

const endpointVerdictSchema = z.enum(['correct', 'wrong', 'illegal']);
const configFieldSchema = z.enum(configFields);
const locationCountsSchema = z.partialRecord(z.enum([...configFields, 'all']), z.number().int().nonnegative());

export const sampleStatisticsSchema = z.object({
  sampleVerdict: z.enum(['correct', 'wrong', 'illegal', 'nonexecutable']),
  errorVerdict: z.enum(['no_request', 'incomplete_request', 'runtime_error']).nullable(),
  urlVerdict: endpointVerdictSchema.nullable(),
  methodVerdict: endpointVerdictSchema.nullable(),
  endpointVerdict: endpointVerdictSchema.nullable(),
  counts: z.record(z.enum(countNames), locationCountsSchema),
}) satisfies z.ZodType<SampleStatistics>;

const argumentJudgementSchema = z.object({
  field: configFieldSchema,
  name: z.string(),
  expected: z.json().optional(),
  actual: z.json().optional(),
  verdict: z.enum(['correct', 'incorrect-value', 'missing', 'unnecessary', 'illegal']),
  counted: z.boolean(),
}) satisfies z.ZodType<ArgumentJudgement>;

export const requestComparisonSchema = z.object({
  url: z.object({ expected: z.string(), actual: z.string(), verdict: endpointVerdictSchema, expectedTemplate: z.string(), actualTemplate: z.string().nullable() }),
  method: z.object({ expected: z.string(), actual: z.string(), verdict: endpointVerdictSchema }),
  endpoint: endpointVerdictSchema,
  arguments: z.array(argumentJudgementSchema),
}) satisfies z.ZodType<RequestComparison>;

/** The details the request scorer gives (score-request.ts). */
export const webapiRequestDetailsSchema = z.object({
  api: z.string(),
  statistics: sampleStatisticsSchema,
  comparison: requestComparisonSchema.optional(),
  /** The run hit this limit after its first request (which is still judged). */
  limitAfterFirstRequest: z.string().optional(),
});

export type WebapiRequestDetails = z.infer<typeof webapiRequestDetailsSchema>;

/**
 * Every webapi score's details: the request scorer's, and the program that ran (or the answer, when none did);
 * no program when the episode ended before the model answered.
 */
export const webapiDetailsSchema = webapiRequestDetailsSchema.extend({ program: z.string().optional() });

export type WebapiDetails = z.infer<typeof webapiDetailsSchema>;
