import { z } from 'zod';

/** Why an episode ended. Only `infrastructure-error` episodes are excluded from scoring. */
export const terminationSchema = z.enum([
  'final-answer',
  'max-turns',
  'max-tool-calls',
  'time-limit',
  'context-length',
  'content-filter',
  'output-unparsable',
  'cancelled',
]);
export type Termination = z.infer<typeof terminationSchema>;
