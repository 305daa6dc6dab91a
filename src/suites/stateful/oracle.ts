/**
 * Oracles (paper III-F, seeds-reference 6.4): the reference program runs in the sandbox against a fresh backend;
 * its RESULT and the backend's end state are the first test case. When the program branches, the hoisted constant
 * is flipped and the run repeated for a second test case (the else-branch). A task is kept only if the reference
 * program passes its own test cases when run again. A program under test passes only if every test case passes:
 * it runs to completion, its RESULT matches within the scenario's tolerance and the end state is equal.
 */
import { Script } from 'node:vm';
import type { JsonValue } from '../../core/json.ts';
import { wrapProgram } from '../../sandbox/program-source.ts';
import type { Sandbox, SandboxLimits, SandboxResult } from '../../sandbox/spec.ts';
import { composeProgram, flipConstant, renderInitBlock, type StatefulProgram } from './program-generator.ts';
import { valuesMatch, type Comparison } from './result-comparison.ts';
import type { BackendFactory } from './stateful-backend.ts';

export type TestCase = {
  /** The initialization block this test case runs with (the hoisted constant as given). */
  initBlock: string;
  /** Which branch the reference took: 'if', 'else', or 'none' for a straight-line program. */
  branch: 'if' | 'else' | 'none';
  expected: { result: JsonValue; state: JsonValue };
};

/** What one run of a program against one test case produced. */
export type Observation = {
  status: SandboxResult['status'];
  error?: { name: string; message: string };
  /** RESULT in comparable form (null when the program did not complete). */
  result: JsonValue;
  state: JsonValue;
  logs: string[];
};

export type RunTarget = {
  sandbox: Sandbox;
  createBackend: BackendFactory;
  fixtures: JsonValue;
  limits?: Partial<SandboxLimits>;
};

/** Runs `body` after `initBlock` against a fresh backend; the backend is disposed afterwards. */
export async function runTestCase(target: RunTarget, initBlock: string, body: string, signal?: AbortSignal): Promise<Observation> {
  const backend = await target.createBackend(target.fixtures);
  try {
    const run = await target.sandbox.run({
      code: composeProgram(initBlock, body),
      bindings: backend.bindings,
      ...(backend.http ? { http: { respond: backend.http } } : {}),
      limits: { timeLimitMs: 10_000, ...target.limits },
    }, { signal });
    const logs = run.logs.map((entry) => entry.text);
    const state = backend.snapshotState();
    if (run.status === 'completed') return { status: run.status, result: backend.resolveResult(run.value), state, logs };
    return { status: run.status, ...(run.status === 'error' ? { error: { name: run.error.name, message: run.error.message } } : {}), result: null, state, logs };
  } finally {
    await backend.dispose();
  }
}

export const testCaseVerdicts = ['passed', 'syntax-error', 'runtime-error', 'wrong-result', 'wrong-state'] as const;
export type TestCaseVerdict = typeof testCaseVerdicts[number];

/**
 * True when the program (after the initialization block) does not even parse. Compile only: node:vm's Script
 * parses the source and nothing is ever run outside the QuickJS sandbox.
 */
export function hasSyntaxError(initBlock: string, body: string): boolean {
  try {
    new Script(wrapProgram(composeProgram(initBlock, body)));
    return false;
  } catch (error) {
    return error instanceof SyntaxError;
  }
}

/** The paper's RQ4 error types, plus wrong state split from wrong result. */
export function judgeObservation(testCase: TestCase, observation: Observation, comparison: Comparison): TestCaseVerdict {
  if (observation.status !== 'completed') return 'runtime-error';
  if (!valuesMatch(testCase.expected.result, observation.result, comparison)) return 'wrong-result';
  if (!valuesMatch(testCase.expected.state, observation.state, comparison)) return 'wrong-state';
  return 'passed';
}

export type ProgramVerdict = { passed: boolean; verdicts: TestCaseVerdict[]; observations: (Observation | undefined)[] };

/** Runs a program under test against every test case (it passes only if all pass). */
export async function evaluateProgram(target: RunTarget, testCases: readonly TestCase[], body: string, comparison: Comparison, signal?: AbortSignal): Promise<ProgramVerdict> {
  const verdicts: TestCaseVerdict[] = [];
  const observations: (Observation | undefined)[] = [];
  for (const testCase of testCases) {
    if (hasSyntaxError(testCase.initBlock, body)) {
      verdicts.push('syntax-error');
      observations.push(undefined);
      continue;
    }
    const observation = await runTestCase(target, testCase.initBlock, body, signal);
    verdicts.push(judgeObservation(testCase, observation, comparison));
    observations.push(observation);
  }
  return { passed: verdicts.every((verdict) => verdict === 'passed'), verdicts, observations };
}

const branchMarker = '__stateful_branch__:';

/** The body with a console marker at the start of each branch, to learn which one ran. */
function instrumented(body: string): string {
  return body.split('\n').flatMap((line) => {
    if (line.startsWith('if (') && line.endsWith('{')) return [line, `  console.log('${branchMarker}if');`];
    if (line === '} else {') return [line, `  console.log('${branchMarker}else');`];
    return [line];
  }).join('\n');
}

function takenBranch(observation: Observation): 'if' | 'else' | 'none' {
  const marker = observation.logs.find((text) => text.startsWith(branchMarker));
  return marker === undefined ? 'none' : marker.slice(branchMarker.length) as 'if' | 'else';
}

export type OracleOutcome =
  | { kind: 'kept'; testCases: TestCase[] }
  | { kind: 'rejected'; reason: string };

/** Records the test cases of a generated program and checks the reference passes them. */
export async function buildOracle(program: StatefulProgram, target: Omit<RunTarget, 'fixtures'>, comparison: Comparison): Promise<OracleOutcome> {
  const runTarget: RunTarget = { ...target, fixtures: program.fixtures };
  const initBlocks = [renderInitBlock(program)];
  if (program.branch) initBlocks.push(renderInitBlock(program, flipConstant(program.branch.value)));
  const testCases: TestCase[] = [];
  for (const [index, initBlock] of initBlocks.entries()) {
    const observation = await runTestCase(runTarget, initBlock, instrumented(program.body));
    if (observation.status !== 'completed') {
      // The first test case must run; a failing flipped case is dropped, as the reference does.
      if (index === 0) return { kind: 'rejected', reason: `reference program ${observation.status}: ${observation.error?.message ?? ''}` };
      continue;
    }
    testCases.push({ initBlock, branch: takenBranch(observation), expected: { result: observation.result, state: observation.state } });
  }
  const check = await evaluateProgram(runTarget, testCases, program.body, comparison);
  if (!check.passed) return { kind: 'rejected', reason: `reference program fails its own test cases: ${check.verdicts.join(', ')}` };
  return { kind: 'kept', testCases };
}
