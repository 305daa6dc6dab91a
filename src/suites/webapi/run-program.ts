/**
 * The webapi side of running a model's answer the way WAPIIBench's pipeline does: assemble the
 * program, cut out the first axios call (excess code before and after it never runs), which the code
 * agent executes in the sandbox (stopped right after its first request); then read what happened.
 */
import type { ExtractedProgram, ProgramHost, ProgramRun } from '../../core/program-host.ts';
import type { ProgramResult } from '../../core/program.ts';
import { assembleProgram, extractAxiosCall } from './extract-code.ts';
import type { Endpoint } from './prompt.ts';
import type { ProgramOutcome } from './score-request.ts';

/**
 * The program behind an answer: a completion answer already starts with the starter (the webapi
 * agent prepends it; a raw continuation gets it here), a chat answer is merged with the starter.
 */
export function programOf(starter: string, answer: string, endpoint: Endpoint): string {
  if (endpoint === 'completions') return answer.startsWith(starter) ? answer : assembleProgram(starter, answer, 'completion');
  return assembleProgram(starter, answer, 'chat');
}

/** The first axios call of the program behind an answer; 'none' carries the whole program. */
export function extractWebapiProgram(starter: string, answer: string, endpoint: Endpoint): ExtractedProgram {
  const program = programOf(starter, answer, endpoint);
  const extraction = extractAxiosCall(program);
  return extraction.type === 'call' ? { type: 'program', code: extraction.code } : { type: 'none', reason: extraction.type, text: program };
}

/** What the environment offers a webapi program: no functions, recorded HTTP stopped after the first request. */
export function webapiProgramHost(starter: string, endpoint: Endpoint, timeLimitMs: number, observe: (run: ProgramRun) => void): ProgramHost {
  return {
    functions: {},
    http: { excessCode: 'stop-after-first-request' },
    timeLimitMs,
    extractProgram: (answer) => extractWebapiProgram(starter, answer, endpoint),
    observe,
  };
}

/** The outcome the scorer judges, from the program run the code agent recorded. */
export function programOutcomeOf(run: ProgramRun): ProgramOutcome {
  const { extraction, result } = run;
  if (extraction.type === 'none') return { type: extraction.reason === 'incomplete-request' ? 'incomplete-request' : 'absent-request' };
  if (result === null) return { type: 'limit-exceeded', message: 'the episode ended before the program ran' };
  return outcomeOf(result);
}

export function outcomeOf(result: ProgramResult): ProgramOutcome {
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
