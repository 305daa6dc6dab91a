/**
 * webapi tasks as a stream: a task file's list is read item by item and a spec's samples are made as they are asked
 * for, with the same tasks, in the same order, as the whole set, and a bad item failing only when it is reached.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../src/core/errors.ts';
import type { Task } from '../../../src/core/task.ts';
import { loadOpenApiFile } from '../../../src/openapi/load-openapi.ts';
import { generateSamples, streamSamples } from '../../../src/suites/webapi/generate-from-spec.ts';
import { webapiSuite } from '../../../src/suites/webapi/index.ts';
import { importWapiibenchFile, streamWapiibenchFile } from '../../../src/suites/webapi/wapiibench-data.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { temporaryDirectory } from '../../e2e/run-cli.ts';
import { fixturePath } from '../../require-data.ts';

const specPath = fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');
const combinedFixture = fixturePath('wapiibench', 'data', 'synthetic', 'all', 'test_data_final.json');

async function take(stream: AsyncIterable<Task>, count: number): Promise<Task[]> {
  const tasks: Task[] = [];
  for await (const task of stream) {
    tasks.push(task);
    if (tasks.length === count) break;
  }
  return tasks;
}

function knobs(values: Record<string, string>) {
  return resolveKnobs(webapiSuite.id, webapiSuite.knobs, values);
}

function isConfigError(pattern: RegExp, code = 'input.invalid') {
  return (error: unknown): boolean => error instanceof ConfigError && error.code === code && pattern.test(error.message);
}

describe('WAPIIBench task files, read item by item', () => {
  const items = JSON.parse(readFileSync(combinedFixture, 'utf8')) as object[];

  test('a pretty-printed list, a one-line list and the same list with a byte order mark give the same samples', () => {
    const directory = temporaryDirectory();
    const expected = importWapiibenchFile(combinedFixture, { spec: specPath });
    assert.ok(expected.length >= 2);
    const files = {
      'pretty.json': JSON.stringify(items, null, 2),
      'one-line.json': JSON.stringify(items),
      'bom.json': `\uFEFF  \n${JSON.stringify(items)}`,
    };
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(directory, name), text);
      assert.deepEqual([...streamWapiibenchFile(join(directory, name), { spec: specPath })], expected, name);
    }
    assert.deepEqual([...streamWapiibenchFile(combinedFixture, { spec: specPath }, 1)], expected.slice(1), 'from sample 1');
  });

  test('a bad item fails when it is reached, after the good ones, naming its position; one before the start is not read', () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'bad.json');
    writeFileSync(file, `[${JSON.stringify(items[0])}, {"api": "notes", oops}, ${JSON.stringify(items[1])}]`);
    const stream = streamWapiibenchFile(file, { spec: specPath });
    assert.equal(stream.next().value?.index, 0);
    assert.throws(() => stream.next(), isConfigError(/^WAPIIBench file '.*bad\.json', item 1: not JSON \(/));
    assert.deepEqual([...streamWapiibenchFile(file, { spec: specPath }, 2)].map((sample) => sample.task), [(items[1] as { task: string }).task]);

    const shapeless = join(directory, 'shape.json');
    writeFileSync(shapeless, `[${JSON.stringify(items[0])}, {"api": "notes", "index": 1}]`);
    assert.throws(() => [...streamWapiibenchFile(shapeless, { spec: specPath })], isConfigError(/item 1: field 'task'/));
  });

  test('a list that is not one, a missing file and an empty file are refused with what is wrong', () => {
    const directory = temporaryDirectory();
    const cases: [string, string | undefined, (error: unknown) => boolean][] = [
      ['open.json', `[${JSON.stringify(items[0])}`, isConfigError(/open\.json': not a JSON list of tasks \(/)],
      ['trailing.json', `[${JSON.stringify(items[0])}] [`, isConfigError(/trailing\.json': not a JSON list of tasks \(/)],
      ['missing.json', undefined, isConfigError(/cannot read WAPIIBench file '.*missing\.json': no such file/, 'input.unreadable')],
      ['empty.json', '', isConfigError(/cannot read WAPIIBench file '.*empty\.json'/, 'input.unreadable')],
      ['number.json', '7', isConfigError(/number\.json', file: field '\(root\)'/)],
    ];
    for (const [name, text, expected] of cases) {
      if (text !== undefined) writeFileSync(join(directory, name), text);
      assert.throws(() => [...streamWapiibenchFile(join(directory, name), { spec: specPath })], expected, name);
    }
  });
});

describe('webapi task stream', () => {
  test('from a spec: the same tasks as the whole set, from any start, and only as many as are read', async () => {
    const params = knobs({ spec: specPath });
    const request = { seed: 4, count: 30, params };
    const whole = await webapiSuite.generate(request);
    assert.equal(whole.length, 30);
    assert.deepEqual(await take(webapiSuite.streamTasks?.(request) as AsyncIterable<Task>, 30), whole);
    assert.deepEqual(await take(webapiSuite.streamTasks?.(request, { from: 17 }) as AsyncIterable<Task>, 30), whole.slice(17));
    // Ten million asked for, three read: made as they are read (the whole set would not fit in memory).
    const first = await take(webapiSuite.streamTasks?.({ ...request, count: 10_000_000 }) as AsyncIterable<Task>, 3);
    assert.deepEqual(first, whole.slice(0, 3));

    const document = await loadOpenApiFile(specPath);
    const streamed: unknown[] = [];
    for (const sample of streamSamples(document, { seed: 4, optionalProbability: 0.3 })) {
      streamed.push(sample);
      if (streamed.length === 12) break;
    }
    assert.deepEqual(streamed, generateSamples(document, { count: 12, seed: 4, optionalProbability: 0.3 }));
  });

  test('from a task file: the same tasks as the whole set, from any start; the count stops the read', async () => {
    const params = knobs({ data: combinedFixture, spec: specPath });
    const whole = await webapiSuite.generate({ seed: 0, count: undefined, params });
    assert.ok(whole.length >= 3);
    assert.deepEqual(await take(webapiSuite.streamTasks?.({ seed: 0, count: undefined, params }, { from: 1 }) as AsyncIterable<Task>, 100), whole.slice(1));
    assert.deepEqual(await take(webapiSuite.streamTasks?.({ seed: 0, count: 2, params }) as AsyncIterable<Task>, 100), whole.slice(0, 2));

    // A broken item after the count is never reached.
    const directory = temporaryDirectory();
    const items = JSON.parse(readFileSync(combinedFixture, 'utf8')) as object[];
    const file = join(directory, 'tail-broken.json');
    writeFileSync(file, `[${JSON.stringify(items[0])}, ${JSON.stringify(items[1])}, {broken`);
    const tasks = await webapiSuite.generate({ seed: 0, count: 2, params: knobs({ data: file, spec: specPath }) });
    assert.deepEqual(tasks.map((task) => task.id), whole.slice(0, 2).map((task) => task.id));
  });
});
