/**
 * The webapi side of running a model's answer the way WAPIIBench's pipeline does: assemble the
 * program, cut out the first axios call (excess code before and after the cut never runs), which the code
 * agent executes in the sandbox to its end; then read what happened.
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
  if (extraction.type === 'call') return { type: 'program', code: extraction.code };
  // The answer wrote no call at all (prose, a refusal): only the prompt's unfinished `axios.` is left. WAPIIBench counts
  // that as an incomplete request too; the reason says what happened.
  const reason = extraction.type === 'incomplete-request' && !writesCall(starter, answer, endpoint) ? noCallWritten : extraction.type;
  return { type: 'none', reason, text: program };
}

/** The extraction reason of an answer that writes no axios call, so the starter's `axios.` stays unfinished. */
const noCallWritten = 'incomplete-request: no call written';

/** Whether the answer itself starts a call: `axios.` in a chat answer, a method call continuing a completion's `axios.`. */
function writesCall(starter: string, answer: string, endpoint: Endpoint): boolean {
  if (endpoint !== 'completions') return answer.includes('axios.');
  const continuation = answer.startsWith(starter) ? answer.slice(starter.length) : answer;
  return /^\s*[A-Za-z_$][\w$]*\s*\(/.test(continuation) || continuation.includes('axios.');
}

/**
 * What the environment offers a webapi program: no functions, recorded HTTP answered as the reference
 * mock answers (status 200, no body), and the cut call run to its end, so that an error it throws after
 * its first request is seen (the reference's node process exits non-zero there: a runtime error).
 */
export function webapiProgramHost(starter: string, endpoint: Endpoint, timeLimitMs: number, observe: (run: ProgramRun) => void): ProgramHost {
  return {
    functions: {},
    http: { respond: mockReply, excessCode: 'run-all' },
    timeLimitMs,
    extractProgram: (answer) => extractWebapiProgram(starter, answer, endpoint),
    observe,
  };
}

/** axios-mock-adapter's `reply([200])`: no headers and no body, so `response.data` is undefined. */
const mockReply = { status: 200 } as const;

/** The outcome the scorer judges, from the program run the code agent recorded. */
export function programOutcomeOf(run: ProgramRun): ProgramOutcome {
  const { extraction, result } = run;
  if (extraction.type === 'none') {
    if (extraction.reason === noCallWritten) return { type: 'incomplete-request', noCallWritten: true };
    return { type: extraction.reason === 'incomplete-request' ? 'incomplete-request' : 'absent-request' };
  }
  if (result === null) return { type: 'limit-exceeded', message: 'the episode ended before the program ran' };
  return outcomeOf(result);
}

/**
 * The verdict on a run of the cut call (the rule is in README.md, "Excess code"): a throw anywhere is a
 * runtime error, before or after the first request; the time limit hit after the first request leaves
 * that request judged (the reference has no limits: such a program runs on or hangs there, and the paper
 * counts errors, not duration); otherwise the first request is judged and later ones are ignored.
 */
export function outcomeOf(result: ProgramResult): ProgramOutcome {
  const { requests } = result;
  switch (result.status) {
    case 'completed':
    // A promise nothing settles ends a Node program quietly: what it sent still counts.
    case 'unsettled':
      return { type: 'completed', requests };
    case 'error':
      if (result.error.name === 'SyntaxError') return { type: 'syntax-error', message: result.error.message };
      return { type: 'runtime-error', message: `${result.error.name}: ${result.error.message}`, requestsSent: requests.length };
    case 'timeout':
      // The deadline ends the run where it is (uncatchable), so requests recorded came before it.
      if (requests.length > 0) return { type: 'completed', requests, limitAfterFirstRequest: 'time limit' };
      return { type: 'limit-exceeded', message: 'time limit' };
    // The sandbox does not say when these struck, and a program can catch the error they raise and send its
    // request afterwards (a too-deep fetch body, then the call): a limit, whatever was recorded.
    case 'memory-limit':
      return { type: 'limit-exceeded', message: 'memory limit' };
    case 'stack-overflow':
      return { type: 'limit-exceeded', message: 'stack overflow' };
  }
}
