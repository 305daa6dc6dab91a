import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/core/errors.ts';
import { datasetPath } from '../../../src/core/data-location.ts';
import { importNestfulSamples, streamNestfulSamples } from '../../../src/suites/nestful/import-samples.ts';
import { scoreNestfulPredictions } from '../../../src/suites/nestful/score-predictions.ts';
import { requireData } from '../../require-data.ts';

const dataFiles = [
  'src/icl_examples.json',
  'data_v1/executable/executable-data.json',
  'data_v1/non-executable/non-executable-glaive-data.json',
  'data_v1/non-executable/non-executable-sgd-data.json',
];

describe('gold sequences as predictions on every shared NESTFUL sample', { skip: requireData('nestful') }, () => {
  for (const file of dataFiles) {
    test(`${file}: 1.000 on every metric (win rate over executable samples)`, () => {
      const samples = importNestfulSamples(datasetPath('nestful', ...file.split('/')));
      const { metrics } = scoreNestfulPredictions(samples, samples.map((sample) => sample.outputJson));
      assert.equal(metrics.f1Function, 1);
      assert.equal(metrics.f1Parameter, 1);
      assert.equal(metrics.partialAccuracy, 1);
      assert.equal(metrics.fullAccuracy, 1);
      if (metrics.executableTasks > 0) assert.equal(metrics.winRate, 1);
    });
  }

  test('sample counts, flavours and executable samples are as published', () => {
    const counts = dataFiles.map((file) => importNestfulSamples(datasetPath('nestful', ...file.split('/'))).length);
    assert.deepEqual(counts, [3, 85, 169, 46]);
    const icl = importNestfulSamples('src/icl_examples.json');
    assert.deepEqual(icl.map((sample) => sample.flavour), ['math', 'math', 'code']);
    const { metrics } = scoreNestfulPredictions(icl, icl.map((sample) => sample.outputJson));
    // The two MathQA samples execute with our operations; the code sample's tools are Python we do not run.
    assert.equal(metrics.executableTasks, 2);
    assert.deepEqual(icl.map((sample) => sample.goldAnswerJson), ['130.0', '75.0', '{"Hello": 1, "world!": 1, "How": 1, "are": 1, "you?": 1}']);
  });

  test('v1 samples: id is file name + index, tools come from the sibling spec file, var_result is dropped', () => {
    const samples = importNestfulSamples('data_v1/executable/executable-data.json');
    assert.equal(samples[0].sampleId, 'executable-data/0');
    assert.equal(samples[0].tools.length, 39);
    assert.equal(samples[0].flavour, 'v1');
    const withoutPseudo = JSON.parse(samples[0].outputJson).filter((call: { name: string }) => call.name !== 'var_result');
    const { evaluations } = scoreNestfulPredictions([samples[0]], [JSON.stringify(withoutPseudo)]);
    assert.equal(evaluations[0].fullMatch, true);
    assert.equal(evaluations[0].executable, false);
  });
});

describe('formats and bad input', () => {
  const directory = mkdtempSync(join(tmpdir(), 'nestful-import-'));
  const sample = {
    sample_id: 's1', input: 'add 1 and 2',
    output: [{ name: 'add', label: '$var_1', arguments: { arg_0: 1, arg_1: 2 } }],
    tools: [{ name: 'add', description: 'adds', parameters: { arg_0: { type: 'int' }, arg_1: { type: 'int' } }, output_parameters: { result: { type: 'int' } } }],
    gold_answer: 3.0,
  };

  test('JSONL and official result files (JSON-stringified fields) read the same', () => {
    const jsonl = join(directory, 'samples.jsonl');
    writeFileSync(jsonl, `${JSON.stringify(sample).replace('"gold_answer":3', '"gold_answer":3.0')}\n\n`);
    const resultFile = join(directory, 'output.jsonl');
    const row = { ...sample, output: JSON.stringify(sample.output), tools: JSON.stringify(sample.tools), gold_answer: '3.0', generated_text: '[]' };
    writeFileSync(resultFile, `${JSON.stringify(row)}\n`);
    const [fromSamples] = importNestfulSamples(jsonl);
    const [fromResults] = importNestfulSamples(resultFile);
    assert.deepEqual(fromSamples, fromResults);
    assert.equal(fromSamples.goldAnswerJson, '3.0');
    assert.equal(fromSamples.outputJson, '[{"name": "add", "label": "$var_1", "arguments": {"arg_0": 1, "arg_1": 2}}]');
  });

  test('read from sample k, a JSONL file (blank lines between) or a JSON list gives the samples from k; lines before k are not read', () => {
    const samples = [1, 2, 3, 4].map((index) => ({ ...sample, sample_id: `s${index}` }));
    const jsonl = join(directory, 'from.jsonl');
    // Line 2 is not JSON: a stream started past it never reads it.
    writeFileSync(jsonl, `${JSON.stringify(samples[0])}\nnot json\n\n${samples.slice(2).map((item) => JSON.stringify(item)).join('\n\n')}\n`);
    assert.deepEqual([...streamNestfulSamples(jsonl, 2)].map((item) => item.sampleId), ['s3', 's4']);
    assert.throws(() => [...streamNestfulSamples(jsonl, 1)], (error: unknown) => error instanceof ConfigError && /line 2/.test(error.message));
    const list = join(directory, 'from.json');
    writeFileSync(list, JSON.stringify(samples));
    for (const from of [0, 1, 3, 4, 9]) {
      assert.deepEqual([...streamNestfulSamples(list, from)], importNestfulSamples(list).slice(from), `from ${from}`);
    }
  });

  test('a JSON list is read item by item: the same samples as JSONL, a bad item named by its index after the good ones', () => {
    const samples = [1, 2, 3].map((index) => ({ ...sample, sample_id: `s${index}`, gold_answer: index + 0.5 }));
    const jsonl = join(directory, 'same.jsonl');
    writeFileSync(jsonl, `${samples.map((item) => JSON.stringify(item)).join('\n')}\n`);
    // Pretty-printed over many lines, with a byte order mark and leading blank lines, and as one line.
    const pretty = join(directory, 'same-pretty.json');
    writeFileSync(pretty, `\ufeff\n\n${JSON.stringify(samples, null, 2)}\n`);
    const oneLine = join(directory, 'same-one-line.json');
    writeFileSync(oneLine, JSON.stringify(samples));
    assert.deepEqual(importNestfulSamples(pretty), importNestfulSamples(jsonl));
    assert.deepEqual(importNestfulSamples(oneLine), importNestfulSamples(jsonl));

    const badItem = join(directory, 'bad-item.json');
    writeFileSync(badItem, `[${JSON.stringify(samples[0])}, {"sample_id": "s2", "input": }]`);
    const stream = streamNestfulSamples(badItem);
    assert.equal(stream.next().value?.sampleId, 's1');
    assert.throws(() => stream.next(), (error: unknown) => error instanceof ConfigError && error.code === 'input.invalid'
      && error.message.includes(`${badItem} item 1: not JSON`) && error.fix !== undefined);
    // An item past the start is not parsed.
    assert.deepEqual([...streamNestfulSamples(badItem, 2)], []);

    for (const [text, message] of [
      [`[${JSON.stringify(samples[0])}`, /not a JSON list of samples \(the list is not closed/],
      [`[${JSON.stringify(samples[0])}] trailing`, /not a JSON list of samples \(text after the list/],
    ] as const) {
      const path = join(directory, 'shape.json');
      writeFileSync(path, text);
      assert.throws(() => importNestfulSamples(path), (error: unknown) => error instanceof ConfigError && error.code === 'input.invalid'
        && error.message.startsWith(`${path}: `) && message.test(error.message) && error.fix !== undefined, text);
    }
  });

  test('a JSONL file that starts with blank lines is read line by line, its lines numbered from the top', () => {
    const path = join(directory, 'blank-start.jsonl');
    writeFileSync(path, `\n\n${JSON.stringify(sample)}\nnot json\n`);
    const stream = streamNestfulSamples(path);
    assert.equal(stream.next().value?.sampleId, 's1');
    assert.throws(() => stream.next(), (error: unknown) => error instanceof ConfigError && /blank-start\.jsonl line 4: not JSON/.test(error.message));
  });

  test('a missing field is a ConfigError naming the line and the field', () => {
    const path = join(directory, 'broken.jsonl');
    writeFileSync(path, `${JSON.stringify(sample)}\n${JSON.stringify({ ...sample, tools: [{ description: 'no name' }] })}\n`);
    assert.throws(() => importNestfulSamples(path), (error: unknown) => error instanceof ConfigError && error.code === 'input.invalid'
      && /line 2/.test(error.message) && /tools\[0\]\.name/.test(error.message));
  });

  test('a missing file and a non-JSON line are ConfigErrors with a fix', () => {
    assert.throws(() => importNestfulSamples(join(directory, 'nope.json')), (error: unknown) => error instanceof ConfigError && error.code === 'input.unreadable' && error.fix !== undefined);
    const path = join(directory, 'garbage.jsonl');
    writeFileSync(path, 'not json\n');
    assert.throws(() => importNestfulSamples(path), (error: unknown) => error instanceof ConfigError && /line 1/.test(error.message));
  });
});
