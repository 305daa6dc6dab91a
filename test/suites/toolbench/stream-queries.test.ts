/**
 * StableToolBench query files read item by item: the same queries as the file parsed whole, a bad item failing only
 * when it is reached, and nothing past --count read.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../src/core/errors.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { importSolvableQueries, streamSolvableQueries } from '../../../src/suites/toolbench/stabletoolbench-data.ts';
import { toolbenchSuite } from '../../../src/suites/toolbench/toolbench-suite.ts';
import { temporaryDirectory } from '../../e2e/run-cli.ts';
import { fixturePath } from '../../require-data.ts';

const fixture = fixturePath('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_instruction.json');
const items = JSON.parse(readFileSync(fixture, 'utf8')) as object[];

function isConfigError(pattern: RegExp, code = 'input.invalid') {
  return (error: unknown): boolean => error instanceof ConfigError && error.code === code && pattern.test(error.message);
}

describe('StableToolBench query files, read item by item', () => {
  test('a pretty-printed list, a one-line list and one with a byte order mark give the same queries', () => {
    assert.ok(items.length >= 2);
    const directory = temporaryDirectory();
    const expected = importSolvableQueries(fixture, 'G1_instruction');
    assert.equal(expected.length, items.length);
    for (const [name, text] of Object.entries({ 'one-line.json': JSON.stringify(items), 'bom.json': `\uFEFF\n${JSON.stringify(items, null, 1)}` })) {
      writeFileSync(join(directory, name), text);
      assert.deepEqual([...streamSolvableQueries(join(directory, name), 'G1_instruction')], expected, name);
    }
  });

  test('a bad item fails when it is reached, after the good ones, naming its position', () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'bad.json');
    writeFileSync(file, `[${JSON.stringify(items[0])}, {"query": oops}]`);
    const stream = streamSolvableQueries(file, 'mine');
    assert.equal(stream.next().value?.group, 'mine');
    assert.throws(() => stream.next(), isConfigError(/'.*bad\.json' item 1: not JSON \(/));
    writeFileSync(file, `[${JSON.stringify(items[0])}, {"query": "q"}]`);
    assert.throws(() => [...streamSolvableQueries(file, 'mine')], isConfigError(/item 1: field 'query_id'/));
  });

  test('a file that is not a list, a list that is not closed, a missing and an empty file say what is wrong', () => {
    const directory = temporaryDirectory();
    const cases: [string, string | undefined, (error: unknown) => boolean][] = [
      ['object.json', '{"query": "q"}', isConfigError(/'.*object\.json' is not a list of queries\n/)],
      ['open.json', `[${JSON.stringify(items[0])}`, isConfigError(/'.*open\.json' is not a list of queries \(the list is not closed/)],
      ['missing.json', undefined, isConfigError(/cannot read StableToolBench query file '.*missing\.json': no such file/, 'input.unreadable')],
      ['empty.json', '', isConfigError(/cannot read StableToolBench query file '.*empty\.json'/, 'input.unreadable')],
    ];
    for (const [name, text, expected] of cases) {
      if (text !== undefined) writeFileSync(join(directory, name), text);
      assert.throws(() => [...streamSolvableQueries(join(directory, name), 'mine')], expected, name);
    }
  });

  test('the suite reads a data file only as far as --count, and streams the same tasks as it generates', async () => {
    const directory = temporaryDirectory();
    const file = join(directory, 'tail-broken.json');
    writeFileSync(file, `[${JSON.stringify(items[0])}, ${JSON.stringify(items[1])}, {broken`);
    const params = resolveKnobs(toolbenchSuite.id, toolbenchSuite.knobs, { data: file });
    const tasks = await toolbenchSuite.generate({ seed: 0, count: 2, params });
    assert.equal(tasks.length, 2);
    await assert.rejects(toolbenchSuite.generate({ seed: 0, count: 3, params }), isConfigError(/tail-broken\.json' is not a list of queries \(the list is not closed/));

    const whole = await toolbenchSuite.generate({ seed: 1, count: undefined, params: resolveKnobs(toolbenchSuite.id, toolbenchSuite.knobs, { data: fixture }) });
    const streamed = [];
    for await (const task of toolbenchSuite.streamTasks?.({ seed: 1, count: undefined, params: resolveKnobs(toolbenchSuite.id, toolbenchSuite.knobs, { data: fixture }) }, { from: 1 }) ?? []) streamed.push(task);
    assert.deepEqual(streamed, whole.slice(1));
  });
});
