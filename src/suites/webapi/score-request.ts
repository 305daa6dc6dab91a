/**
 * Scores one webapi episode from what its program did: the first recorded request is captured,
 * compared with the expected config, and turned into the sample's statistics (kept in
 * Score.details so that the suite summary can rebuild Table V) and a failure code:
 * no call / incomplete call / syntax error -> output.unparsable; a throw (before or after the first
 * request) or no request -> execution.error; a time or memory limit before any request -> limit.exceeded; illegal URL or method -> tool.unknown;
 * an illegal argument -> arguments.invalid; anything else not correct -> result.wrong.
 */
import type { FailureCode } from '../../core/failure.ts';
import type { Score } from '../../core/score.ts';
import type { Task } from '../../core/task.ts';
import { loadJudgedSpec } from './drifted-spec.ts';
import type { RecordedRequest } from './capture-request.ts';
import { captureRequestConfig } from './capture-request.ts';
import { argumentsOf, compareRequest } from './compare-request.ts';
import type { RequestComparison } from './compare-request.ts';
import type { ErrorVerdict, SampleStatistics } from './sample-statistics.ts';
import { executableSampleStatistics, nonexecutableSampleStatistics } from './sample-statistics.ts';
import type { WebapiRequestDetails } from './webapi-details.ts';
import { readWebapiExpected } from './webapi-task.ts';

/** A request score: it always carries its details. */
export type RequestScore = Score<WebapiRequestDetails> & { details: WebapiRequestDetails };

/** What running the model's program gave. */
export type ProgramOutcome =
  | { type: 'absent-request' }
  /** `noCallWritten`: the answer wrote no call at all, so only the prompt's unfinished `axios.` was there. */
  | { type: 'incomplete-request'; noCallWritten?: boolean }
  | { type: 'syntax-error'; message: string }
  /** `requestsSent`: requests the program had sent when it threw (absent in outcomes built by hand). */
  | { type: 'runtime-error'; message: string; requestsSent?: number }
  | { type: 'limit-exceeded'; message: string }
  /** `limitAfterFirstRequest`: the run hit a limit after its first request, which is still judged. */
  | { type: 'completed'; requests: readonly RecordedRequest[]; limitAfterFirstRequest?: string };

/** Scores a program that ran to completion and recorded `recordedRequests` (the first one is judged). */
export function scoreWebapiRequest(task: Task, recordedRequests: readonly RecordedRequest[]): Promise<RequestScore> {
  return scoreWebapiOutcome(task, { type: 'completed', requests: recordedRequests });
}

export async function scoreWebapiOutcome(task: Task, outcome: ProgramOutcome): Promise<RequestScore> {
  const expected = readWebapiExpected(task);
  const document = await loadJudgedSpec(expected);
  const failed = (errorVerdict: ErrorVerdict, failure: FailureCode, reason: string): RequestScore => {
    const statistics = nonexecutableSampleStatistics(errorVerdict, argumentsOf(document, expected.config).fields);
    return { value: 0, passed: false, reason, failure, details: details(expected.api, statistics, undefined) };
  };
  switch (outcome.type) {
    case 'absent-request':
      return failed('no_request', 'output.unparsable', 'the output contains no axios call');
    case 'incomplete-request':
      return failed('incomplete_request', 'output.unparsable', outcome.noCallWritten === true
        ? 'the answer writes no axios call, so the prompt\'s unfinished `axios.` is all there is (an incomplete request, as WAPIIBench counts it)'
        : 'the axios call is incomplete (no end of the call found)');
    case 'syntax-error':
      return failed('runtime_error', 'output.unparsable', `the program does not parse: ${outcome.message}`);
    case 'runtime-error':
      return failed('runtime_error', 'execution.error', outcome.requestsSent
        ? `the program threw after sending ${outcome.requestsSent === 1 ? 'its first request' : `${outcome.requestsSent} requests`}: ${outcome.message}`
        : `the program threw: ${outcome.message}`);
    case 'limit-exceeded':
      return failed('runtime_error', 'limit.exceeded', `the program hit a limit: ${outcome.message}`);
    case 'completed':
      break;
  }
  const [first] = outcome.requests;
  if (!first) return failed('runtime_error', 'execution.error', 'the program sent no request');
  const captured = captureRequestConfig(first);
  if (!captured.ok) return failed('runtime_error', 'execution.error', captured.error);
  const comparison = compareRequest(document, expected.config, captured.config);
  const statistics = executableSampleStatistics(comparison);
  const scoreDetails: WebapiRequestDetails = {
    ...details(expected.api, statistics, comparison),
    ...(outcome.limitAfterFirstRequest ? { limitAfterFirstRequest: outcome.limitAfterFirstRequest } : {}),
  };
  switch (statistics.sampleVerdict) {
    case 'correct':
      return { value: 1, passed: true, reason: 'the request matches the expected configuration', details: scoreDetails };
    case 'illegal':
      if (comparison.endpoint === 'illegal') {
        return { value: 0, passed: false, failure: 'tool.unknown', reason: `no such endpoint in the spec: ${comparison.method.actual.toUpperCase()} ${comparison.url.actual}`, details: scoreDetails };
      }
      return { value: 0, passed: false, failure: 'arguments.invalid', reason: `arguments the spec does not allow: ${listArguments(comparison, 'illegal')}`, details: scoreDetails };
    default:
      return { value: 0, passed: false, failure: 'result.wrong', reason: wrongReason(comparison), details: scoreDetails };
  }
}

function listArguments(comparison: RequestComparison, verdict: string): string {
  return comparison.arguments.filter((judgement) => judgement.counted && judgement.verdict === verdict).map((judgement) => `${judgement.field}.${judgement.name}`).join(', ');
}

function wrongReason(comparison: RequestComparison): string {
  const parts: string[] = [];
  if (comparison.url.verdict !== 'correct') parts.push(`wrong URL (${comparison.url.actualTemplate ?? comparison.url.actual}, expected ${comparison.url.expectedTemplate})`);
  if (comparison.method.verdict !== 'correct') parts.push(`wrong method (${comparison.method.actual}, expected ${comparison.method.expected})`);
  for (const verdict of ['missing', 'incorrect-value', 'unnecessary'] as const) {
    const names = listArguments(comparison, verdict);
    if (names) parts.push(`${verdict}: ${names}`);
  }
  return parts.join('; ') || 'the request differs from the expected configuration';
}

function details(api: string, statistics: SampleStatistics, comparison: RequestComparison | undefined): WebapiRequestDetails {
  return { api, statistics, ...(comparison ? { comparison } : {}) };
}
