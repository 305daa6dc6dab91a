import type { z } from 'zod';
import { formatFieldPath } from './field-path.ts';

/** "field 'run.trials': Too small: expected number to be >0" — the first issue is enough to fix. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = formatFieldPath(issue.path);
  const described = field ? `field '${field}': ${issue.message}` : issue.message;
  return `${described}${misspeltAs(error, issue)}`;
}

/**
 * A missing field beside an unknown key of the same object is most often one misspelt (`modles:` for `models:`):
 * naming the unknown key says what to fix, where "expected array, received undefined" alone does not.
 */
function misspeltAs(error: z.ZodError, issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_type' || !/received undefined$/.test(issue.message) || issue.path.length === 0) return '';
  const parent = issue.path.slice(0, -1);
  const unknown = error.issues.find((other): other is z.core.$ZodIssueUnrecognizedKeys => other.code === 'unrecognized_keys'
    && other.path.length === parent.length && other.path.every((key, index) => key === parent[index]));
  if (unknown === undefined) return '';
  return ` (the object has ${unknown.keys.map((key) => `'${key}'`).join(', ')} instead: misspelt?)`;
}
