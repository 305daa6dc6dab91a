/**
 * Runs a model's answer the way WAPIIBench's pipeline does: assemble the program, cut out the first
 * axios call (excess code before and after it never runs), execute only that call in the sandbox
 * (which stops it right after its first request), and report what happened.
 */
import type { Sandbox, SandboxResult } from '../../sandbox/spec.ts';
import type { AxiosCallExtraction } from './extract-code.ts';
import { assembleProgram, extractAxiosCall } from './extract-code.ts';
import type { Endpoint } from './prompt.ts';
import type { ProgramOutcome } from './score-request.ts';

export type ProgramRun = { program: string; extraction: AxiosCallExtraction; outcome: ProgramOutcome };

/**
 * The program behind an answer: a completion answer already starts with the starter (the webapi
 * agent prepends it; a raw continuation gets it here), a chat answer is merged with the starter.
 */
export function programOf(starter: string, answer: string, endpoint: Endpoint): string {
  if (endpoint === 'completions') return answer.startsWith(starter) ? answer : assembleProgram(starter, answer, 'completion');
  return assembleProgram(starter, answer, 'chat');
}

export async function runWebapiProgram(sandbox: Sandbox, program: string, options: { timeLimitMs: number; signal?: AbortSignal }): Promise<ProgramRun> {
  const extraction = extractAxiosCall(program);
  if (extraction.type !== 'call') return { program, extraction, outcome: { type: extraction.type } };
  const result = await sandbox.run(
    { code: extraction.code, limits: { timeLimitMs: options.timeLimitMs }, http: { excessCode: 'stop-after-first-request' } },
    { signal: options.signal },
  );
  return { program, extraction, outcome: outcomeOf(result) };
}

export function outcomeOf(result: SandboxResult): ProgramOutcome {
  switch (result.status) {
    case 'completed':
    // A promise nothing settles ends a Node program quietly: what it sent still counts.
    case 'unsettled':
      return { type: 'completed', requests: result.requests };
    case 'error':
      return result.error.name === 'SyntaxError'
        ? { type: 'syntax-error', message: result.error.message }
        : { type: 'runtime-error', message: `${result.error.name}: ${result.error.message}` };
    case 'timeout':
      return { type: 'limit-exceeded', message: 'time limit' };
    case 'memory-limit':
      return { type: 'limit-exceeded', message: 'memory limit' };
    case 'stack-overflow':
      return { type: 'limit-exceeded', message: 'stack overflow' };
  }
}
