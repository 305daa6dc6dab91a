/**
 * Hand-built cases where the official NESTFUL scorer (upstream fc2c412: `src/scorer.py`, `src/utils.py`
 * and the LLaMa-3.1 parser `parse_llama_3_output` in `src/output_parsers.py`) was computed by hand from
 * its code; each test states that figure and why. Our figures must equal it, or differ only where the
 * suite README lists a deliberate difference.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NestfulSample, NestfulTool } from './nestful-sample.ts';
import { parseCallList } from './parse-call-list.ts';
import { scoreNestfulPredictions } from './score-predictions.ts';

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
