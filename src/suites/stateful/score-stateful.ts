/**
 * The StateEval verdict on one episode (paper III-F, RQ4): the model's program passes only if, for every test
 * case, its run completed, its RESULT matches the oracle's within the scenario's tolerance and the backend's end
 * state equals the oracle's. Judged from the stored end state (one observation per test case) alone; the program
 * is only parsed here (syntax errors), never run. In mode `calls` (voice) RESULT is the model's final answer (JSON)
 * and the end state the lab's after its calls, judged against the first test case.
 */
import type { FailureCode } from '../../core/failure.ts';
import { failureCodes } from '../../core/failure.ts';
import type { Mode } from '../../core/mode.ts';
import type { Score, ScoreInput } from '../../core/score.ts';
import { z } from 'zod';
import { taskOutcome, taskOutcomes } from './error-types.ts';
import { hasSyntaxError, judgeObservation, testCaseVerdicts, type TestCaseVerdict } from './oracle.ts';
import type { StatefulEndState, StoredObservation } from './stateful-environment.ts';
import { statefulScenarios } from './stateful-scenarios.ts';
import { readStatefulExpected } from './stateful-task.ts';
import { stripVoiceIds } from './voice/voice-backend.ts';
import { parseResultAnswer } from './voice/voice-calls.ts';

/** What the summary reads back from every score (the suite's detailsSchema). */
export const statefulScoreDetailsSchema = z.object({
  scenario: z.string(),
  /** RQ4 outcome of the task ('no-program' when the answer held no code, 'not-run' when the episode stopped first). */
  outcome: z.enum([...taskOutcomes, 'no-program', 'not-run']),
  verdicts: z.array(z.enum([...testCaseVerdicts, 'not-run'])),
  program: z.string(),
});

export type StatefulScoreDetails = z.infer<typeof statefulScoreDetailsSchema>;

const failureOf: Record<Exclude<StatefulScoreDetails['outcome'], 'passed'>, FailureCode> = {
  'no-program': 'output.unparsable',
  'syntax-error': 'output.unparsable',
  'runtime-error': 'execution.error',
  'wrong-result': 'result.wrong',
  'wrong-state': 'result.wrong',
  'not-run': 'limit.exceeded',
};

const reasons: Record<StatefulScoreDetails['outcome'], string> = {
  'passed': 'every test case passes: RESULT and end state match the reference',
  'no-program': 'the answer holds no program',
  'syntax-error': 'the program does not parse',
  'runtime-error': 'the program did not run to completion on a test case',
  'wrong-result': 'RESULT differs from the reference on a test case',
  'wrong-state': 'the backend end state differs from the reference on a test case',
  'not-run': 'the episode ended before the program ran on every test case',
};

function endStateOf(finalState: unknown, count: number): (StoredObservation | null)[] {
  const testCases = (finalState as Partial<StatefulEndState> | null)?.testCases;
  return Array.isArray(testCases) ? Array.from({ length: count }, (_, index) => testCases[index] ?? null) : Array.from({ length: count }, () => null);
}

export async function scoreStateful(input: ScoreInput & { mode?: Mode }): Promise<Score<StatefulScoreDetails>> {
  const expected = readStatefulExpected(input.task);
  const { comparison } = statefulScenarios[expected.scenario];
  const run = input.calls.find((call) => call.type === 'program');
  const score = (outcome: StatefulScoreDetails['outcome'], verdicts: StatefulScoreDetails['verdicts'], program: string, note = ''): Score<StatefulScoreDetails> => {
    const details: StatefulScoreDetails = { scenario: expected.scenario, outcome, verdicts, program };
    const reason = `${reasons[outcome]}${verdicts.length > 0 ? ` (${verdicts.join(', ')})` : ''}${note}`;
    return outcome === 'passed' ? { value: 1, passed: true, reason, details } : { value: 0, passed: false, reason, failure: failureOf[outcome], details };
  };
  if (input.mode === 'calls') {
    const note = ' (mode calls: RESULT is the final answer, judged on the first test case)';
    const [observation] = endStateOf(input.finalState, 1);
    if (!observation || (input.termination !== 'final-answer' && input.termination !== 'content-filter')) return score('not-run', ['not-run'], '', ` (${input.termination})`);
    const answer = [...input.messages].reverse().find((message) => message.role === 'assistant')?.content ?? '';
    const verdict = judgeObservation(expected.testCases[0], { ...observation, result: stripVoiceIds(parseResultAnswer(answer)), logs: [] }, comparison);
    const scored = score(verdict, [verdict], '', note);
    // Calls the backend refused are counted by their code (an unknown tool, bad arguments), as in the other call
    // suites; a wrong end that began with one is failed for the first of them.
    const faults = input.calls.flatMap((call) => (call.type === 'tool' && !call.result.ok && (failureCodes as readonly string[]).includes(call.result.error.code)
      ? [call.result.error.code as FailureCode] : []));
    if (faults.length === 0) return scored;
    const failureCounts: Partial<Record<FailureCode, number>> = {};
    for (const fault of faults) failureCounts[fault] = (failureCounts[fault] ?? 0) + 1;
    return { ...scored, failureCounts, ...(scored.passed ? {} : { failure: faults[0] }) };
  }
  if (!run || run.extraction.type === 'none') {
    if (!run && input.termination !== 'final-answer' && input.termination !== 'content-filter') return score('not-run', [], '', ` (${input.termination})`);
    return score('no-program', [], run?.extraction.type === 'none' ? run.extraction.text : '');
  }
  const program = run.extraction.code;
  const observations = endStateOf(input.finalState, expected.testCases.length);
  const verdicts = expected.testCases.map((testCase, index): TestCaseVerdict | 'not-run' => {
    if (hasSyntaxError(testCase.initBlock, program)) return 'syntax-error';
    const observation = observations[index];
    if (!observation) return 'not-run';
    return judgeObservation(testCase, { ...observation, logs: [] }, comparison);
  });
  const judged = verdicts.filter((verdict): verdict is TestCaseVerdict => verdict !== 'not-run');
  const outcome = taskOutcome(judged);
  if (outcome === 'passed' && judged.length < verdicts.length) return score('not-run', verdicts, program);
  // A RESULT that could not be read compares as null: say why, or the wrong result looks like the program's answer.
  const unreadable = verdicts.findIndex((verdict, index) => verdict === 'wrong-result' && observations[index]?.resultError !== undefined);
  const note = unreadable === -1 ? '' : `; test case ${unreadable + 1}: RESULT reads as null because ${observations[unreadable]?.resultError}`;
  return score(outcome, verdicts, program, note);
}
