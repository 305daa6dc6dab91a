import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NestfulReference } from '../../../src/suites/nestful/evaluate-sample.ts';
import { alignByName, evaluatePrediction, partialAccuracy } from '../../../src/suites/nestful/evaluate-sample.ts';
import { importNestfulSamples } from '../../../src/suites/nestful/import-samples.ts';
import { aggregateEvaluations, flattenMetrics, macroF1 } from '../../../src/suites/nestful/nestful-metrics.ts';
import type { NestfulSample, NestfulTool } from '../../../src/suites/nestful/nestful-sample.ts';
import { parseCallList } from '../../../src/suites/nestful/parse-call-list.ts';
import { scoreNestfulPredictions } from '../../../src/suites/nestful/score-predictions.ts';
import { fixturePath } from '../../require-data.ts';

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

function mathTool(name: string, arity: number): NestfulTool {
  const parameters: Record<string, { description: string; type: string }> = {};
  for (let index = 0; index < arity; index += 1) parameters[`arg_${index}`] = { description: `number ${index}`, type: 'int or float' };
  return { name, description: name, parameters, output_parameters: { result: { description: 'result', type: 'int or float' } } };
}

const icl = importNestfulSamples(fixturePath('nestful', 'samples.json'));
const objectiveTest = icl[0]; // multiply, add, add, divide -> 130.0
const goldCalls = JSON.parse(objectiveTest.outputJson) as { name: string; label: string; arguments: Record<string, unknown> }[];

function scoreOne(sample: NestfulSample, prediction: unknown) {
  const { metrics, evaluations } = scoreNestfulPredictions([sample], [typeof prediction === 'string' ? prediction : JSON.stringify(prediction)]);
  return {
    f1Function: round3(metrics.f1Function), f1Parameter: round3(metrics.f1Parameter), partial: round3(metrics.partialAccuracy),
    full: metrics.fullAccuracy, win: metrics.winRate, evaluation: evaluations[0],
  };
}

describe('reference quirk table (section 1.6), exact numbers', () => {
  test('gold + extra call to unknown foo: 1, 1, 0.8, 0, 0', () => {
    const result = scoreOne(objectiveTest, [...goldCalls, { name: 'foo', label: '$var_5', arguments: { arg_0: 1 } }]);
    assert.deepEqual([result.f1Function, result.f1Parameter, result.partial, result.full, result.win], [1, 1, 0.8, 0, 0]);
    assert.equal(result.evaluation.failure, 'tool.unknown');
  });

  test('labels renumbered ($var_11...): 1, 1, 1, 1, 1', () => {
    const renumbered = JSON.parse(JSON.stringify(goldCalls).replaceAll('$var_', '$var_1'));
    const result = scoreOne(objectiveTest, renumbered);
    assert.deepEqual([result.f1Function, result.f1Parameter, result.partial, result.full, result.win], [1, 1, 1, 1, 1]);
  });

  test('equivalent re-ordering (add(4,2) first): 1, 0.733, 0.25, 0, 1', () => {
    const result = scoreOne(objectiveTest, [
      { name: 'add', label: '$var_1', arguments: { arg_0: 4, arg_1: 2 } },
      { name: 'multiply', label: '$var_2', arguments: { arg_0: 150, arg_1: 2 } },
      { name: 'add', label: '$var_3', arguments: { arg_0: 480, arg_1: '$var_2.result$' } },
      { name: 'divide', label: '$var_4', arguments: { arg_0: '$var_3.result$', arg_1: '$var_1.result$' } },
    ]);
    assert.deepEqual([result.f1Function, result.f1Parameter, result.partial, result.full, result.win], [1, 0.733, 0.25, 0, 1]);
  });

  test('references without the trailing $: 1, 1, 1, 1, 1', () => {
    const result = scoreOne(objectiveTest, JSON.parse(JSON.stringify(goldCalls).replaceAll('.result$', '.result')));
    assert.deepEqual([result.f1Function, result.f1Parameter, result.partial, result.full, result.win], [1, 1, 1, 1, 1]);
  });
});

describe('hand-computed metric cases', () => {
  const sample: NestfulSample = {
    sampleId: 'twice', input: 'add twice', flavour: 'math',
    outputJson: JSON.stringify([
      { name: 'add', label: '$var_1', arguments: { arg_0: 1, arg_1: 2 } },
      { name: 'add', label: '$var_2', arguments: { arg_0: 3, arg_1: '$var_1.result$' } },
    ]),
    goldAnswerJson: '6.0',
    tools: [mathTool('add', 2), mathTool('subtract', 2), mathTool('divide', 2)],
  };

  test('repeated calls to one function: only the last call per name counts for F1 parameter', () => {
    // Gold add row = {arg_0 = 3, arg_1 = $add.result$}; predicted last add = {arg_0 = 3, arg_1 = 4}: F1 (1 + 0) / 2.
    const wrongLast = scoreOne(sample, [
      { name: 'add', label: '$var_1', arguments: { arg_0: 1, arg_1: 2 } },
      { name: 'add', label: '$var_2', arguments: { arg_0: 3, arg_1: 4 } },
    ]);
    assert.deepEqual([wrongLast.f1Function, wrongLast.f1Parameter, wrongLast.partial, wrongLast.full, wrongLast.win], [1, 0.5, 0.5, 0, 0]);
    assert.equal(wrongLast.evaluation.failure, 'result.wrong');
    // A wrong first call is invisible to F1 parameter (last call wins) but not to partial accuracy.
    const wrongFirst = scoreOne(sample, [
      { name: 'add', label: '$var_1', arguments: { arg_0: 9, arg_1: 9 } },
      { name: 'add', label: '$var_2', arguments: { arg_0: 3, arg_1: '$var_1.result$' } },
    ]);
    assert.deepEqual([wrongFirst.f1Function, wrongFirst.f1Parameter, wrongFirst.partial, wrongFirst.full, wrongFirst.win], [1, 1, 0.5, 0, 0]);
  });

  test('empty prediction: parsed, scores 0 everywhere, no win', () => {
    const result = scoreOne(sample, []);
    assert.deepEqual([result.f1Function, result.f1Parameter, result.partial, result.full, result.win], [0, 0, 0, 0, 0]);
    assert.equal(result.evaluation.parsed, true);
    assert.equal(result.evaluation.failure, 'result.wrong');
  });

  test('unparsable output: output.unparsable, 0 everywhere, never a throw', () => {
    for (const text of ['', 'I cannot help with that.', '[{"name": "add", "arguments": {"arg_0": 1', '{"answer": 6}']) {
      const result = scoreOne(sample, text);
      assert.deepEqual([result.f1Function, result.f1Parameter, result.partial, result.full, result.win], [0, 0, 0, 0, 0], text);
      assert.equal(result.evaluation.failure, 'output.unparsable', text);
    }
  });

  test('unknown functions are ignored by F1 function (gold vocabulary) but cost partial accuracy', () => {
    const result = scoreOne(sample, [
      { name: 'add', label: '$var_1', arguments: { arg_0: 1, arg_1: 2 } },
      { name: 'sum_up', label: '$var_2', arguments: { arg_0: 3, arg_1: '$var_1.result$' } },
    ]);
    assert.equal(result.f1Function, 1);
    assert.equal(result.partial, 0.5);
    assert.equal(result.evaluation.failure, 'tool.unknown');
    const onlyUnknown = scoreOne(sample, [{ name: 'sum_up', label: '$var_1', arguments: { arg_0: 1 } }]);
    assert.equal(onlyUnknown.f1Function, 0);
  });

  test('arguments run positionally in the order written (as the official executor does)', () => {
    const subtraction: NestfulSample = {
      ...sample, sampleId: 'sub',
      outputJson: JSON.stringify([{ name: 'subtract', label: '$var_1', arguments: { arg_0: 10, arg_1: 4 } }]), goldAnswerJson: '6.0',
    };
    const result = scoreOne(subtraction, [{ name: 'subtract', label: '$var_1', arguments: { arg_1: 10, arg_0: 4 } }]);
    assert.equal(result.win, 1);
    assert.equal(result.partial, 0);
  });

  test('win-rate failure codes: unresolvable reference, missing label, wrong arity, division by zero', () => {
    const divide: NestfulSample = {
      ...sample, sampleId: 'div',
      outputJson: JSON.stringify([{ name: 'divide', label: '$var_1', arguments: { arg_0: 12, arg_1: 4 } }]), goldAnswerJson: '3.0',
    };
    assert.equal(scoreOne(divide, [{ name: 'divide', label: '$var_1', arguments: { arg_0: '$var_7.result$', arg_1: 4 } }]).evaluation.failure, 'arguments.invalid');
    assert.equal(scoreOne(divide, [{ name: 'divide', arguments: { arg_0: 12, arg_1: 4 } }]).evaluation.failure, 'arguments.invalid');
    assert.equal(scoreOne(divide, [{ name: 'divide', label: '$var_1', arguments: { arg_0: 12 } }]).evaluation.failure, 'arguments.invalid');
    assert.equal(scoreOne(divide, [{ name: 'divide', label: '$var_1', arguments: { arg_0: 12, arg_1: 0 } }]).evaluation.failure, 'execution.error');
    assert.equal(scoreOne(divide, [{ name: 'divide', label: '$var_1', arguments: { arg_0: 12, arg_1: 5 } }]).evaluation.failure, 'result.wrong');
  });

  test('float gold rounds the prediction to its decimals; an int gold does not', () => {
    const calls = [{ name: 'divide', label: '$var_1', arguments: { arg_0: 1, arg_1: 3 } }];
    const floatGold: NestfulSample = { ...sample, sampleId: 'third', outputJson: JSON.stringify(calls), goldAnswerJson: '0.33' };
    assert.equal(scoreOne(floatGold, calls).win, 1);
    const nearInteger: NestfulSample = {
      ...sample, sampleId: 'near', outputJson: JSON.stringify([{ name: 'subtract', label: '$var_1', arguments: { arg_0: 0.3, arg_1: 0.1 } }]),
    };
    assert.equal(scoreOne({ ...nearInteger, goldAnswerJson: '0.2' }, JSON.parse(nearInteger.outputJson)).win, 1); // 0.19999999999999998
    const zero = { ...nearInteger, outputJson: JSON.stringify([{ name: 'subtract', label: '$var_1', arguments: { arg_0: 0.3, arg_1: 0.3 } }]), goldAnswerJson: '0' };
    assert.equal(scoreOne(zero, JSON.parse(zero.outputJson)).win, 1);
    const integerGold: NestfulSample = {
      ...sample, sampleId: 'six', outputJson: JSON.stringify([{ name: 'divide', label: '$var_1', arguments: { arg_0: 18, arg_1: 3 } }]), goldAnswerJson: '6',
    };
    const noisy = [{ name: 'divide', label: '$var_1', arguments: { arg_0: 17.99999999, arg_1: 3 } }];
    assert.equal(scoreOne(integerGold, noisy).win, 0);
    assert.equal(scoreOne({ ...integerGold, goldAnswerJson: '6.0' }, noisy).win, 1);
  });

  test('float literals count in parameter strings: 100.0 is not 100', () => {
    const hundred: NestfulSample = {
      ...sample, sampleId: 'hundred',
      outputJson: '[{"name": "add", "label": "$var_1", "arguments": {"arg_0": 100, "arg_1": 2}}]', goldAnswerJson: '102.0',
    };
    const result = scoreOne(hundred, '[{"name": "add", "label": "$var_1", "arguments": {"arg_0": 100.0, "arg_1": 2}}]');
    assert.equal(result.partial, 0);
    assert.equal(result.f1Parameter, 0.5);
    assert.equal(result.win, 1);
  });
});

describe('corpus-level macro F1 and alignment', () => {
  test('F1 is fitted on the gold vocabulary across the dataset, not averaged per sample', () => {
    // add: TP in both samples -> 1; multiply: FN -> 0; divide (predicted only) is not in the vocabulary.
    assert.equal(macroF1([[['add'], ['add', 'multiply']], [['add', 'divide'], ['add']]]), 0.5);
    // Per label: a = 2TP/(2TP+FP+FN) = 2/(2+1+0) on a (a predicted where absent once).
    assert.equal(round3(macroF1([[['a'], ['a']], [['a'], ['b']]])), round3((2 / 3 + 0) / 2));
    assert.equal(macroF1([]), 0);
  });

  test('greedy name alignment pads the shorter list (only when lengths differ)', () => {
    assert.deepEqual(alignByName(['a()', 'b()', 'c()'], ['a()', 'c()']), [['a()', 'b()', 'c()'], ['a()', '', 'c()']]);
    assert.equal(partialAccuracy(['a()', 'b()', 'c()'], ['a()', 'c()']), 2 / 3);
    // Greedy, not optimal: the gold 'a' is padded away before the predicted 'a' is reached.
    assert.deepEqual(alignByName(['a()', 'b()'], ['b()', 'a()', 'x()']), [['a()', 'b()', '', ''], ['', 'b()', 'a()', 'x()']]);
    assert.equal(partialAccuracy(['a()', 'b()'], ['b()', 'a()', 'x()']), 0.25);
    assert.equal(partialAccuracy(['a()', 'b()'], ['b()', 'a()']), 0);
    assert.equal(partialAccuracy(['a()'], []), 0);
  });

  test('aggregate: full accuracy is the share of samples with partial accuracy 1; win rate over executable samples only', () => {
    const reference = (executable: boolean): NestfulReference => ({
      outputJson: objectiveTest.outputJson, goldAnswerJson: objectiveTest.goldAnswerJson, tools: objectiveTest.tools, executable,
    });
    const gold = evaluatePrediction(reference(true), { type: 'text', text: objectiveTest.outputJson });
    const half = evaluatePrediction(reference(false), { type: 'text', text: JSON.stringify(goldCalls.slice(0, 2)) });
    const metrics = aggregateEvaluations([gold, half]);
    assert.equal(metrics.fullAccuracy, 0.5);
    assert.equal(metrics.partialAccuracy, (1 + 0.5) / 2);
    assert.equal(metrics.executableTasks, 1);
    assert.equal(metrics.winRate, 1);
    assert.deepEqual(metrics.winRateByDepth, [{ key: '2', tasks: 1, wins: 1, winRate: 1 }]);
    assert.deepEqual(metrics.winRateByPattern.map((row) => row.key), ['A->B, {B,C}->D']);
  });
});

describe('robust output parsing', () => {
  const calls = '[{"name": "add", "arguments": {"arg_0": 1, "arg_1": 2}, "label": "$var_1"}]';
  const accepted: [string, string][] = [
    ['bare list', calls],
    ['json fence with language tag', `Here you go:\n\`\`\`json\n${calls}\n\`\`\``],
    ['tool_call tags', `<tool_call>${calls}</tool_call>`],
    ['special token tags', `<|tool_call|>${calls}<|eom_id|>`],
    ['leading prose', `Sure! The calls are: ${calls} Hope this helps.`],
    ['tool_calls wrapper', `{"tool_calls": ${calls}}`],
    ['single quotes', "[{'name': 'add', 'arguments': {'arg_0': 1, 'arg_1': 2}, 'label': '$var_1'}]"],
    ['several tool_call blocks', '<tool_call>{"name": "add", "arguments": {"arg_0": 1, "arg_1": 2}, "label": "$var_1"}</tool_call>\n<tool_call>{"name": "add", "arguments": {"arg_0": 3, "arg_1": "$var_1.result$"}, "label": "$var_2"}</tool_call>'],
    ['OpenAI-style function objects', '[{"type": "function", "function": {"name": "add", "arguments": "{\\"arg_0\\": 1, \\"arg_1\\": 2}"}}]'],
  ];
  for (const [name, text] of accepted) {
    test(`accepts ${name}`, () => {
      const parsed = parseCallList(text);
      assert.ok(parsed.ok, name);
      assert.equal(parsed.calls[0].name, 'add');
      assert.deepEqual(parsed.calls[0].arguments, { arg_0: 1, arg_1: 2 });
    });
  }

  test('a truncated list stays unparsable instead of becoming its first call', () => {
    assert.equal(parseCallList('[{"name": "add", "arguments": {"arg_0": 1}}, {"name": "div').ok, false);
  });

  test('a fenced, labelled prediction scores like the bare list', () => {
    const fenced = scoreOne(objectiveTest, `\`\`\`json\n${objectiveTest.outputJson}\n\`\`\``);
    assert.deepEqual([fenced.f1Function, fenced.f1Parameter, fenced.partial, fenced.full, fenced.win], [1, 1, 1, 1, 1]);
  });
});

test('with no executable sample the flat metrics leave the win rate out instead of reporting 0', () => {
  const flat = flattenMetrics(aggregateEvaluations([]));
  assert.equal('winRate' in flat, false);
  assert.equal(flat.executableTasks, 0);
});
