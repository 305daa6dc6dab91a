/**
 * Algorithm 1's selection rule on hand-built candidates, the frequency book, ATC (Eq. 3) and the data-flow
 * statistics on hand-computed cases, and coverage-guided vs uniform ATC on every scenario.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../../src/core/rng.ts';
import { OccurrenceBook, pairKey } from '../../../src/suites/stateful/occurrence-book.ts';
import { flipConstant } from '../../../src/suites/stateful/program-generator.ts';
import { adjacentTransitionCoverage, coverageCurve, dataFlowStatistics } from '../../../src/suites/stateful/program-statistics.ts';
import { scenarioIds } from '../../../src/suites/stateful/stateful-backend.ts';
import { statefulScenarios } from '../../../src/suites/stateful/stateful-scenarios.ts';
import { candidatePairs, chooseCandidate } from '../../../src/suites/stateful/trace-generator.ts';
import type { Candidate } from '../../../src/suites/stateful/trace-model.ts';

function candidate(transition: string, consumes: string[]): Candidate<unknown> {
  return { transition, isApiCall: true, consumes, parameterKey: transition, apply: () => ({ statements: [], produces: [] }) };
}

const context = { lastTransition: new Map([['x', 'cat'], ['w', 'load']]), apiCalls: ['cat'] };

describe('pair transitions and selection', () => {
  test('pairs: one per consumed object, bridged by its last transition, plus (previous call, candidate)', () => {
    assert.deepEqual(candidatePairs(context, candidate('linear', ['x', 'w'])), ['cat||linear', 'load||linear']);
    assert.deepEqual(candidatePairs(context, candidate('conv2d', ['fresh'])), ['NONE||conv2d', 'cat||conv2d']);
    assert.deepEqual(candidatePairs({ lastTransition: new Map(), apiCalls: [] }, candidate('cat', [])), ['NONE||cat']);
  });

  test('a candidate with an unseen pair always wins over fully seen ones', () => {
    const book = new OccurrenceBook();
    for (const pair of ['cat||linear', 'load||linear', 'cat||transpose']) book.record(pair);
    const seen = candidate('linear', ['x', 'w']);
    const fresh = candidate('transpose', ['w']);
    const rng = new Rng(1);
    for (let draw = 0; draw < 200; draw += 1) assert.equal(chooseCandidate(context, [seen, fresh], book, 'coverage', rng), fresh);
  });

  test('among seen candidates, energy 1/(min count + ε): the rarer pair is chosen in proportion', () => {
    const book = new OccurrenceBook();
    for (let index = 0; index < 9; index += 1) book.record('cat||linear');
    book.record('cat||transpose');
    const rng = new Rng(2);
    let rare = 0;
    const draws = 2000;
    for (let draw = 0; draw < draws; draw += 1) {
      if (chooseCandidate({ lastTransition: new Map(), apiCalls: ['cat'] }, [candidate('linear', []), candidate('transpose', [])], book, 'coverage', rng).transition === 'transpose') rare += 1;
    }
    // Only the adjacent pairs (cat, ·): weights 1/1 and 1/9 => transpose with probability 0.9.
    assert.ok(rare / draws > 0.85 && rare / draws < 0.95, `${rare / draws}`);
  });

  test('uniform ablation ignores the book', () => {
    const book = new OccurrenceBook();
    for (let index = 0; index < 1000; index += 1) book.record('cat||linear');
    const rng = new Rng(3);
    let linear = 0;
    for (let draw = 0; draw < 1000; draw += 1) if (chooseCandidate(context, [candidate('linear', []), candidate('transpose', [])], book, 'uniform', rng).transition === 'linear') linear += 1;
    assert.ok(linear > 430 && linear < 570, `${linear}`);
  });

  test('the book round-trips as {"A||B": n} and persists across a generation run', () => {
    const book = new OccurrenceBook();
    book.record(pairKey('a', 'b'));
    book.record(pairKey('a', 'b'));
    assert.deepEqual(OccurrenceBook.fromJSON(book.toJSON()).toJSON(), { 'a||b': 2 });
    const definition = statefulScenarios.voice;
    let run = new OccurrenceBook();
    const totals: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      run = definition.generateProgram({ calls: 5, branch: 'none', guidance: 'coverage' }, new Rng(index), run).book;
      totals.push(Object.values(run.toJSON()).reduce((sum, count) => sum + count, 0));
    }
    assert.ok(totals[0] < totals[1] && totals[1] < totals[2], totals.join(','));
  });

  test('flipping the hoisted constant (reference reverse_if_condition)', () => {
    assert.equal(flipConstant('17'), '17_diff');
    assert.equal(flipConstant(2.4), 3.4);
    assert.deepEqual(flipConstant([2, 3]), [2, 3, 2]);
  });
});

describe('statistics', () => {
  test('ATC counts distinct adjacent pairs over every path, divided by M²', () => {
    const programs = [{ paths: [['a', 'b', 'c'], ['a', 'b', 'a']] }, { paths: [['c', 'c']] }];
    // ab, bc, ba, cc => 4 / 9
    assert.equal(adjacentTransitionCoverage(programs, 3), 4 / 9);
    assert.deepEqual(coverageCurve(programs, 3, [1, 2]).map((point) => point.atc), [3 / 9, 4 / 9]);
  });

  test('path depth and binding count from the calls data flow', () => {
    const calls = [
      { api: 'load', consumes: [], produces: ['t'] },
      { api: 'cat', consumes: ['t', 'u'], produces: ['r1'] },
      { api: 'linear', consumes: ['r1', 'w'], produces: ['r2'] },
      { api: 'transpose', consumes: ['t'], produces: ['r3'] },
      { api: 'noop', consumes: ['x'], produces: [] },
    ];
    assert.deepEqual(dataFlowStatistics(calls), { pathDepth: 2, bindingCount: 2 });
    assert.deepEqual(dataFlowStatistics([]), { pathDepth: 0, bindingCount: 0 });
  });
});

describe('coverage guidance beats the ablation (paper Fig. 3)', () => {
  for (const scenario of scenarioIds) {
    test(`${scenario}: mean ATC over 5 seeds is higher with coverage at 20, 40 and 60 programs`, () => {
      const definition = statefulScenarios[scenario];
      const mean = (guidance: 'coverage' | 'uniform') => {
        const sums = [0, 0, 0];
        for (let seed = 0; seed < 5; seed += 1) {
          let book = new OccurrenceBook();
          const programs = [];
          const rng = new Rng(seed);
          for (let index = 0; index < 60; index += 1) {
            const generated = definition.generateProgram({ calls: 5, branch: 'sampled', guidance }, rng.child(index), book);
            book = generated.book;
            programs.push(generated.program);
          }
          coverageCurve(programs, definition.apis.length, [20, 40, 60]).forEach((point, index) => { sums[index] += point.atc / 5; });
        }
        return sums;
      };
      const guided = mean('coverage');
      const uniform = mean('uniform');
      for (const index of [0, 1, 2]) assert.ok(guided[index] > uniform[index], `${scenario} at ${[20, 40, 60][index]}: ${guided[index]} vs ${uniform[index]}`);
    });
  }
});

describe('error types', () => {
  test('a task takes its most basic failure over all test cases; the distribution counts tasks', async () => {
    const { errorTypeDistribution, taskOutcome } = await import('../../../src/suites/stateful/error-types.ts');
    assert.equal(taskOutcome(['passed', 'passed']), 'passed');
    assert.equal(taskOutcome(['wrong-state', 'runtime-error']), 'runtime-error');
    assert.equal(taskOutcome(['passed', 'wrong-result']), 'wrong-result');
    assert.deepEqual(errorTypeDistribution([['passed'], ['syntax-error', 'syntax-error'], ['wrong-state', 'passed'], ['passed', 'passed']]), {
      passed: 2, 'syntax-error': 1, 'runtime-error': 0, 'wrong-result': 0, 'wrong-state': 1,
    });
  });
});
