/**
 * The command line a run records in its provenance (and a stopped run's "start it again" message repeats): the
 * user's words, with the passwords of connection URLs masked, since provenance travels in exports and reports.
 */
import { redactUrlPasswords } from '../core/redact-credentials.ts';

export function recordedArguments(argv: readonly string[]): string[] {
  return argv.map(redactUrlPasswords);
}
