/**
 * Hand-built cases where the official NESTFUL scorer (upstream fc2c412: `src/scorer.py`, `src/utils.py`
 * and the LLaMa-3.1 parser `parse_llama_3_output` in `src/output_parsers.py`) was computed by hand from
 * its code; each test states that figure and why. Our figures must equal it, or differ only where the
 * suite README lists a deliberate difference.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '../../../src/core/json.ts';
import { Rng } from '../../../src/core/rng.ts';
import { datasetPath } from '../../../src/core/data-location.ts';
import { requireData } from '../../require-data.ts';
import { generateSample } from '../../../src/suites/nestful/generate-samples.ts';
import { importNestfulSamples } from '../../../src/suites/nestful/import-samples.ts';
import type { PythonNumber } from '../../../src/suites/nestful/math-operations.ts';
import { mathOperationsByName, OperationError, runMathOperation } from '../../../src/suites/nestful/math-operations.ts';
import type { NestfulSample, NestfulTool } from '../../../src/suites/nestful/nestful-sample.ts';
import { parseCallList } from '../../../src/suites/nestful/parse-call-list.ts';
import { checkExecutable, scoreNestfulPredictions } from '../../../src/suites/nestful/score-predictions.ts';

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

function tool(name: string, parameters: string[], output = 'result'): NestfulTool {
  return {
    name, description: name,
    parameters: Object.fromEntries(parameters.map((parameter) => [parameter, { description: parameter, type: 'int or float' }])),
    output_parameters: { [output]: { description: output, type: 'int or float' } },
  };
}

const math = ['arg_0', 'arg_1'];
// 150 * 2 = 300; 480 + 300 = 780; 4 + 2 = 6; 780 / 6 = 130.0
const objectiveCalls = [
  { name: 'multiply', label: '$var_1', arguments: { arg_0: 150, arg_1: 2 } },
  { name: 'add', label: '$var_2', arguments: { arg_0: 480, arg_1: '$var_1.result$' } },
  { name: 'add', label: '$var_3', arguments: { arg_0: 4, arg_1: 2 } },
  { name: 'divide', label: '$var_4', arguments: { arg_0: '$var_2.result$', arg_1: '$var_3.result$' } },
];
const objective: NestfulSample = {
  sampleId: 'objective', input: 'how many answers were correct?', flavour: 'math',
  outputJson: JSON.stringify(objectiveCalls), goldAnswerJson: '130.0',
  tools: [tool('multiply', math), tool('add', math), tool('divide', math), tool('subtract', math)],
};
const callTexts = objectiveCalls.map((call) => JSON.stringify(call));

function scoreOne(sample: NestfulSample, prediction: string) {
  const { metrics, evaluations } = scoreNestfulPredictions([sample], [prediction]);
  const evaluation = evaluations[0];
  return {
    figures: [round3(metrics.f1Function), round3(metrics.f1Parameter), round3(metrics.partialAccuracy), metrics.fullAccuracy, metrics.winRate ?? null],
    evaluation,
  };
}

describe('item 1: calls without the outer brackets', () => {
  test('comma-separated objects: official wraps them in [ ] and scores all four calls: 1, 1, 1, 1, 1', () => {
    // parse_llama_3_output: not starting with '[' -> '[' prepended, not ending with ']' -> ']' appended; json.loads
    // then reads all four calls (we used to keep the first only: partial 1/4).
    const result = scoreOne(objective, callTexts.join(', '));
    assert.deepEqual(result.figures, [1, 1, 1, 1, 1]);
    assert.equal(result.evaluation.predictedNames.length, 4);
  });

  test('newline-separated objects: every call read (deliberate difference: the official json.loads fails, 0 everywhere)', () => {
    const result = scoreOne(objective, callTexts.join('\n'));
    assert.deepEqual(result.figures, [1, 1, 1, 1, 1]);
  });

  test('a single bare call: official wraps it into a one-call list: partial 1/4', () => {
    // Gold [multiply, add, add, divide] vs [multiply]: aligned with "" padding, one equal position of four.
    const result = scoreOne(objective, callTexts[0]);
    assert.deepEqual(result.figures.slice(2, 4), [0.25, 0]);
    assert.equal(result.evaluation.failure, 'result.wrong');
  });
});

describe('item 2: output cut by the token limit', () => {
  test('cut at a call boundary: the list is closed and its two complete calls scored: 0.667, 0.333, 0.5, 0, 0', () => {
    // Official: ']' appended -> [multiply, add]. F1 function over {add, divide, multiply}: (1 + 0 + 1) / 3.
    // F1 parameter labels (gold rows multiply, last add, divide): 'arg_0 = 150' 1; 'arg_1 = 2' gold in the
    // multiply and add rows, predicted in multiply only: 2/3; 'arg_0 = 4', 'arg_0/arg_1 = $add.result$': 0 ->
    // (1 + 2/3) / 5 = 0.333. Partial: [m, a, a, d] vs [m, a, "", ""] = 0.5. Win: 480 + 300 = 780 (an int,
    // compared without rounding) != 130.0.
    const result = scoreOne(objective, `[${callTexts[0]}, ${callTexts[1]}`);
    assert.deepEqual(result.figures, [0.667, 0.333, 0.5, 0, 0]);
    assert.equal(result.evaluation.parsed, true);
    assert.equal(result.evaluation.predictedAnswer, 780);
  });

  test('cut inside a call: unparsable, as in the official parser (the appended ] leaves invalid JSON)', () => {
    const result = scoreOne(objective, `[${callTexts[0]}, ${callTexts[1]}, {"name": "add", "argu`);
    assert.deepEqual(result.figures, [0, 0, 0, 0, 0]);
    assert.equal(result.evaluation.failure, 'output.unparsable');
  });

  test('cut after a separating comma: the complete calls (deliberate difference: official json.loads rejects "[..., ]")', () => {
    const result = scoreOne(objective, `[${callTexts[0]}, ${callTexts[1]},`);
    assert.deepEqual(result.figures, [0.667, 0.333, 0.5, 0, 0]);
  });

  test('an argument whose value is a list of objects is never taken for the call list', () => {
    const inner = '{"name": "add", "arguments": {"arg_0": 1, "arg_1": 2}}';
    const outer = `{"name": "batch", "label": "$var_1", "arguments": {"calls": [${inner}]}}`;
    // Cut inside the second call: the official parser fails, and so must we (the inner list used to be read as the calls).
    assert.equal(parseCallList(`[${outer}, {"name": "div`).ok, false);
    assert.equal(parseCallList(`Here: [${outer}, {"name": "div`).ok, false);
    // Cut at the boundary: one call, batch, with its list argument intact.
    const parsed = parseCallList(`[${outer}`);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.calls.map((call) => call.name), ['batch']);
    assert.deepEqual(parsed.calls[0].arguments, { calls: [{ name: 'add', arguments: { arg_0: 1, arg_1: 2 } }] });
  });
});

describe('item 3: references without their trailing $ to tools with hyphens', () => {
  const search = 'Real-Time_Product_Search_Search';
  const reviews = 'Real-Time_Product_Search_Product_Reviews';
  const offers = 'Real-Time_Product_Search_Product_Offers';
  const gold = [
    { name: search, arguments: { q: 'running shoes', min_rating: 4 }, label: 'var1' },
    { name: reviews, arguments: { product_id: '$var1.product_id$', limit: 10 }, label: 'var2' },
    { name: offers, arguments: { product_id: '$var1.product_id$', page: 1 }, label: 'var3' },
    { name: 'var_result', arguments: { product_search: '$var1$', product_reviews: '$var2$', product_offers: '$var3$' } },
  ];
  const sample: NestfulSample = {
    sampleId: 'shoes', input: 'find running shoes', flavour: 'v1', outputJson: JSON.stringify(gold), goldAnswerJson: null,
    tools: [tool(search, ['q', 'min_rating'], 'product_id'), tool(reviews, ['product_id', 'limit']), tool(offers, ['product_id', 'page'])],
  };

  test('official 1, 1, 1, 1 (we gave partial 0.333): grounded "$Real-Time_..._Search.product_id" gets its $', () => {
    // Official: ground_seq_nested_repsonse -> "$Real-Time_Product_Search_Search.product_id"; the slot and
    // partial strings append '$' to any string starting with '$' -> equal to the gold's.
    const prediction = JSON.stringify(gold.slice(0, 3)).replaceAll('.product_id$', '.product_id');
    const result = scoreOne(sample, prediction);
    assert.deepEqual(result.figures.slice(0, 4), [1, 1, 1, 1]);
    assert.equal(result.evaluation.fullMatch, true);
  });
});

describe('item 4: the var_result pseudo-call', () => {
  test('labelled calls + trailing var_result: grounding drops it (1, 1, 1, 1) but execution fails on it: win 0', () => {
    // Official: pred_dict_list keeps var_result; calculate_ans reaches it, f["label"] raises KeyError -> False.
    const prediction = JSON.stringify([...objectiveCalls, { name: 'var_result', arguments: { answer: '$var_4.result$' } }]);
    const result = scoreOne(objective, prediction);
    assert.deepEqual(result.figures, [1, 1, 1, 1, 0]);
    assert.equal(result.evaluation.failure, 'tool.unknown');
  });

  test('unlabelled calls + var_result: not grounded, var_result is a predicted call: 1, 1, 0.5, 0, 0', () => {
    // No 'label' in the text: pred_func_calls = [add, var_result]. F1 function: var_result is outside the
    // gold vocabulary (ignored) -> 1; F1 parameter: its row holds no gold label -> 1; partial: [add, ""] vs
    // [add, var_result] = 0.5; win: the unlabelled add raises KeyError on f["label"] -> 0.
    const single: NestfulSample = {
      ...objective, sampleId: 'single', outputJson: JSON.stringify([{ name: 'add', label: '$var_1', arguments: { arg_0: 1, arg_1: 2 } }]),
      goldAnswerJson: '3.0',
    };
    const result = scoreOne(single, JSON.stringify([
      { name: 'add', arguments: { arg_0: 1, arg_1: 2 } },
      { name: 'var_result', arguments: { answer: '$var1$' } },
    ]));
    assert.deepEqual(result.figures, [1, 1, 0.5, 0, 0]);
    assert.deepEqual(result.evaluation.predictedNames, ['add', 'var_result']);
    assert.equal(result.evaluation.failure, 'arguments.invalid');
  });
});

describe('item 5: the published basic_functions semantics', () => {
  const run = (name: string, ...values: [JsonValue, boolean?][]) => {
    const operation = mathOperationsByName.get(name);
    assert.ok(operation, name);
    try {
      return runMathOperation(operation, values.map(([value, isFloat]) => ({ value, isFloat: isFloat ?? false })));
    } catch (error) {
      if (error instanceof OperationError) return 'raises';
      throw error;
    }
  };

  test('each function, on ints and floats, as Python runs basic_functions.py', () => {
    // Python values, from the published definitions (int vs float is the Python type of the result).
    const cases: [string, [JsonValue, boolean?][], PythonNumber | 'raises'][] = [
      ['sqrt', [[17]], { kind: 'int', value: 4 }], // math.isqrt(17)
      ['sqrt', [[16, true]], 'raises'], // math.isqrt(16.0): TypeError
      ['sqrt', [[-4]], 'raises'],
      ['log', [[1000], [10]], { kind: 'int', value: 2 }], // int(math.log(1000, 10)) = int(2.9999999999999996)
      ['log', [[8], [2]], { kind: 'int', value: 3 }],
      ['log', [[100]], { kind: 'int', value: 4 }], // natural log 4.605 -> 4
      ['log', [[5], [1]], 'raises'],
      ['lcm', [[4], [6]], { kind: 'int', value: 12 }],
      ['lcm', [[4, true], [6]], { kind: 'float', value: 12 }],
      ['lcm', [[2.5], [5]], { kind: 'float', value: 12 }], // abs(12.5) // gcd(int(2.5), int(5)) = 12.5 // 1
      ['lcm', [[0.5], [0.3]], 'raises'], // gcd(0, 0) = 0: ZeroDivisionError
      ['gcd', [[12.7], [8]], { kind: 'int', value: 4 }],
      ['gcd', [['12'], ['8']], { kind: 'int', value: 4 }], // int('12')
      ['choose', [[5], [2]], { kind: 'int', value: 10 }],
      ['choose', [[5, true], [2]], 'raises'], // math.comb rejects floats
      ['choose', [[2], [5]], { kind: 'int', value: 0 }],
      ['permutation', [[5], [2]], { kind: 'int', value: 20 }],
      ['permutation', [[5, true], [2]], 'raises'], // factorial(5.0): range() rejects a float
      ['permutation', [[2], [5]], 'raises'], // factorial(-3): ValueError
      ['factorial', [[0, true]], { kind: 'int', value: 1 }], // n == 0 returns before range()
      ['factorial', [[3, true]], 'raises'],
      ['power', [[2], [-1]], { kind: 'float', value: 0.5 }],
      ['power', [[2], [10]], { kind: 'int', value: 1024 }],
      ['power', [[-8], [1 / 3]], 'raises'], // a complex number in Python: equals no real gold answer
      ['power', [[0], [-1]], 'raises'],
      ['remainder', [[-7], [3]], { kind: 'int', value: 2 }],
      ['reminder', [[7], [-3]], { kind: 'int', value: -2 }],
      ['remainder', [[7.5], [2]], { kind: 'float', value: 1.5 }],
      ['floor', [[-2.5]], { kind: 'int', value: -3 }],
      ['divide', [[8], [2]], { kind: 'float', value: 4 }],
      ['add', [[480], [300]], { kind: 'int', value: 780 }],
      ['add', [[true], [1]], { kind: 'int', value: 2 }], // True is an int
      ['negate_prob', [[0.25]], { kind: 'float', value: 0.75 }],
      ['square_perimeter', [[3]], { kind: 'int', value: 12 }],
      ['square_edge_by_perimeter', [[12]], { kind: 'float', value: 3 }],
      ['volume_cube', [[3]], { kind: 'int', value: 27 }],
      ['max_number', [[[2, 2.0]]], { kind: 'int', value: 2 }], // max() keeps the first of equal elements
      ['min_number', [[[]]], 'raises'],
      // A model's huge arguments end at the overflow (171!), not in a loop that never ends (past 2^53, n + 1 === n).
      ['factorial', [[1e16]], 'raises'],
      ['factorial', [[170]], { kind: 'int', value: 7.257415615307994e306 }],
      ['permutation', [[1e16], [1e16]], 'raises'],
      ['permutation', [[1e16], [1]], { kind: 'int', value: 1e16 }],
      ['choose', [[1e16], [5e15]], 'raises'],
      ['choose', [[1e16], [1]], { kind: 'int', value: 1e16 }],
    ];
    for (const [name, values, expected] of cases) {
      assert.deepEqual(run(name, ...values), expected, `${name}(${values.map(([value, isFloat]) => (isFloat ? `${value}.0` : JSON.stringify(value))).join(', ')})`);
    }
    assert.equal(mathOperationsByName.has('max'), false);
    assert.equal(mathOperationsByName.has('min'), false);
  });

  test('sqrt of a division result fails (a float); of a product it runs: official win 0 and 1', () => {
    const sqrtSample = (first: string): NestfulSample => ({
      sampleId: first, input: 'root', flavour: 'math',
      outputJson: JSON.stringify([
        { name: 'multiply', label: '$var_1', arguments: { arg_0: 4, arg_1: 4 } },
        { name: 'sqrt', label: '$var_2', arguments: { arg_0: '$var_1.result$' } },
      ]),
      goldAnswerJson: '4.0',
      tools: [tool('multiply', math), tool('divide', math), tool('sqrt', ['arg_0'])],
    });
    const sample = sqrtSample('root');
    assert.equal(scoreOne(sample, sample.outputJson).figures[4], 1); // isqrt(16) = 4 == 4.0
    // divide(32, 2) = 16.0, and math.isqrt(16.0) raises TypeError: calculate_ans returns False.
    const viaDivision = scoreOne(sample, JSON.stringify([
      { name: 'divide', label: '$var_1', arguments: { arg_0: 32, arg_1: 2 } },
      { name: 'sqrt', label: '$var_2', arguments: { arg_0: '$var_1.result$' } },
    ]));
    assert.equal(viaDivision.figures[4], 0);
    assert.equal(viaDivision.evaluation.failure, 'arguments.invalid');
    // A literal 16.0 is a float too; 16 is an int.
    assert.equal(scoreOne(sample, '[{"name": "sqrt", "label": "$var_1", "arguments": {"arg_0": 16.0}}]').figures[4], 0);
    assert.equal(scoreOne(sample, '[{"name": "sqrt", "label": "$var_1", "arguments": {"arg_0": 16}}]').figures[4], 1);
  });

  test('a sample offering max or min is not executable here (they are not basic functions)', () => {
    const withMax: NestfulSample = {
      sampleId: 'max', input: 'larger', flavour: 'math', goldAnswerJson: '3.0',
      outputJson: JSON.stringify([{ name: 'max', label: '$var_1', arguments: { arg_0: 1, arg_1: 3 } }]),
      tools: [tool('max', math)],
    };
    assert.deepEqual(checkExecutable(withMax), { executable: false, reason: 'its tools are not MathQA operations implemented here' });
  });

  test('generated samples: published semantics, no max/min, no answer 0, no trivial call', () => {
    const rng = new Rng(99);
    for (let index = 0; index < 400; index += 1) {
      const calls = rng.int(1, 8);
      const knobs = { calls, depth: rng.int(0, calls - 1), fanin: rng.int(1, 2), distractors: rng.int(0, 40) };
      const { sample, nodes } = generateSample(3, index, knobs);
      const where = `sample ${index}`;
      assert.ok(sample.tools.every((offered) => mathOperationsByName.has(offered.name)), where);
      assert.notEqual(Number(sample.goldAnswerJson), 0, where);
      nodes.forEach((node, position) => {
        const inputs = node.inputs.map((input) => (typeof input === 'number' ? input : nodes[input.call].value.value));
        assert.ok(!inputs.includes(node.value.value), `${where}: call ${position} returns one of its inputs`);
        assert.ok(nodes.slice(0, position).every((earlier) => earlier.value.value !== node.value.value), `${where}: call ${position} repeats an earlier value`);
      });
      assert.deepEqual(checkExecutable(sample), { executable: true }, where);
    }
  });
});

describe('measured effect of the remaining deliberate differences on the shared NESTFUL data (README)', () => {
  const files = [['src', 'icl_examples.json'], ['data_v1', 'executable', 'executable-data.json'],
    ['data_v1', 'non-executable', 'non-executable-glaive-data.json'], ['data_v1', 'non-executable', 'non-executable-sgd-data.json']];
  const skip = requireData('nestful', 'data_v1');
  const load = () => files.flatMap((parts) => importNestfulSamples(datasetPath('nestful', ...parts)));
  const figures = (samples: NestfulSample[], predictions: string[]) => {
    const { metrics } = scoreNestfulPredictions(samples, predictions);
    return [metrics.f1Function, metrics.f1Parameter, metrics.partialAccuracy, metrics.fullAccuracy, metrics.unparsable].map(round3);
  };

  test('calls one per line, and lists cut after a separating comma: read here, parse errors for the official parser', { skip }, () => {
    const samples = load();
    assert.equal(samples.length, 303);
    const lists = samples.map((sample) => JSON.parse(sample.outputJson) as unknown[]);
    // Every shared gold list has 2+ entries, so the official '[' + text + ']' is invalid JSON for all 303.
    assert.equal(lists.filter((list) => list.length > 1).length, 303);
    const asList = figures(samples, lists.map((list) => JSON.stringify(list)));
    assert.deepEqual(figures(samples, lists.map((list) => list.map((call) => JSON.stringify(call)).join('\n'))), asList);
    const half = (list: unknown[]) => list.slice(0, Math.ceil(list.length / 2)).map((call) => JSON.stringify(call)).join(', ');
    const atBoundary = figures(samples, lists.map((list) => `[${half(list)}`));
    assert.deepEqual(atBoundary, [0.885, 0.853, 0.865, 0.561, 0]);
    assert.deepEqual(figures(samples, lists.map((list) => `[${half(list)},`)), atBoundary);
  });

  test('the trailing $ only on reference-shaped strings: gold 1.000 here, 0.995 partial / 0.987 full under the official rule', { skip }, () => {
    const samples = load();
    const officialRule = (text: string) => JSON.stringify((JSON.parse(text) as { arguments?: Record<string, unknown> }[]).map((call) => ({
      ...call,
      arguments: Object.fromEntries(Object.entries(call.arguments ?? {}).map(([name, value]) =>
        [name, typeof value === 'string' && value.startsWith('$') && !value.endsWith('$') ? `${value}$` : value])),
    })));
    const changed = samples.filter((sample) => officialRule(sample.outputJson) !== JSON.stringify(JSON.parse(sample.outputJson)));
    assert.equal(changed.length, 3);
    assert.deepEqual(figures(samples, samples.map((sample) => sample.outputJson)), [1, 1, 1, 1, 0]);
    assert.deepEqual(figures(samples, samples.map((sample) => officialRule(sample.outputJson))), [1, 0.996, 0.995, 0.987, 0]);
  });

  test('a failed execution is never a win: no executable shared sample has the gold answer 0', { skip }, () => {
    const executable = load().filter((sample) => checkExecutable(sample).executable);
    assert.equal(executable.length, 2);
    assert.equal(executable.filter((sample) => Number(sample.goldAnswerJson) === 0).length, 0);
  });
});
