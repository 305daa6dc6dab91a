import { z } from 'zod';

/** The closed set of failure codes shared by every suite (suites add details, never codes). */
export const failureCodeSchema = z.enum([
  'output.unparsable',
  'tool.unknown',
  'arguments.invalid',
  'arguments.value-not-yet-known',
  'arguments.incorrect-value',
  'execution.error',
  'result.wrong',
  'limit.exceeded',
  'infrastructure',
]);
export type FailureCode = z.infer<typeof failureCodeSchema>;
export const failureCodes: readonly FailureCode[] = failureCodeSchema.options;
