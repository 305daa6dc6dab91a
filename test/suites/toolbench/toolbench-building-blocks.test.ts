import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from '../../../src/core/errors.ts';
import { hasDataset } from '../../../src/core/data-location.ts';
import { evaluatorRequest, evaluatorTemplatePath, loadEvaluatorPrompts, parseEvaluatorTemplate } from '../../../src/suites/toolbench/evaluator-prompts.ts';
import { createFileResponseCache, createMemoryResponseCache } from '../../../src/suites/toolbench/response-cache.ts';
import type { AnswerStatus, Judge } from '../../../src/suites/toolbench/solvable-pass-rate.ts';
import { judgeAnswer, parseAnswerStatus, solvablePassRate } from '../../../src/suites/toolbench/solvable-pass-rate.ts';
import type { StableApi } from '../../../src/suites/toolbench/stabletoolbench-data.ts';
import { importSolvableQueries, queryGroups, solvableQueriesPath } from '../../../src/suites/toolbench/stabletoolbench-data.ts';
import { simulateResponse } from '../../../src/suites/toolbench/template-simulator.ts';
import { exposeApi, exposeApis, finishToolName, truncateObservation } from '../../../src/suites/toolbench/tool-exposure.ts';
import { changeName, functionName, standardizeCategory, standardizeName } from '../../../src/suites/toolbench/tool-naming.ts';
import { createVirtualApi, toolInputParseError } from '../../../src/suites/toolbench/virtual-api.ts';

const hasQueries = hasDataset('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_instruction.json');

const api: StableApi = {
  category_name: 'Data', tool_name: 'TheClique', api_name: 'Transfermarkt search', api_description: 'Search players',
  required_parameters: [{ name: 'name', type: 'STRING', description: 'Player', default: 'messi' }],
  optional_parameters: [{ name: 'limit', type: 'NUMBER', description: '', default: '10' }, { name: 'exact', type: 'BOOLEAN', description: '', default: 'False' }],
  method: 'GET',
  template_response: { results: [{ id: 'str', name: 'str', market_value: 'float', _list_length: 2 }], total: 'int', tags: ['list of str with length 3'], active: 'bool', extra: 'NoneType' },
};

describe('StableToolBench tool naming and exposure (reference 5.3)', () => {
  test('standardize, change_name, _for_, last 64 characters', () => {
    assert.equal(standardizeName('Transfermarkt search'), 'transfermarkt_search');
    assert.equal(standardizeName('  __Get Stock (v2)!! '), 'get_stock_v2');
    assert.equal(standardizeName('3D Models'), 'get_3d_models');
    assert.equal(standardizeName('a^b'), 'a^b', "the reference's class keeps ^");
    assert.equal(changeName('id'), 'is_id');
    assert.equal(changeName('ids'), 'ids');
    assert.equal(functionName('Transfermarkt search', 'TheClique'), 'transfermarkt_search_for_theclique');
    assert.equal(functionName('From', 'Tool'), 'is_from_for_tool');
    const long = functionName('Get the very long endpoint name for historical prices', 'Yahoo Finance Real Time Data Feed');
    assert.equal(long.length, 64);
    assert.ok('get_the_very_long_endpoint_name_for_historical_prices_for_yahoo_finance_real_time_data_feed'.endsWith(long));
    assert.equal(standardizeCategory('Business, Software/Tools'), 'Business_Software_Tools');
  });

  test('types, example values, typed defaults; Finish always last', () => {
    assert.deepEqual(exposeApi(api).inputSchema, {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Player', example_value: 'messi', default: 'messi' },
        limit: { type: 'integer', description: '', example_value: '10', default: 10 },
        exact: { type: 'boolean', description: '', example_value: 'False', default: false },
      },
      required: ['name'],
    });
    const { tools, apiByFunction } = exposeApis([api, api]);
    assert.deepEqual(tools.map((tool) => tool.name), ['transfermarkt_search_for_theclique', finishToolName]);
    assert.equal(apiByFunction.get('transfermarkt_search_for_theclique'), api);
    assert.equal(truncateObservation('x'.repeat(1030)), `${'x'.repeat(1024)}...`);
    assert.equal(truncateObservation('short'), 'short');
  });

  test('the six groups import: 765 queries; every function name is <= 64 chars', { skip: !hasQueries && 'needs ../shared/data/stabletoolbench (not in a clone)' }, () => {
    const counts = queryGroups.map((group) => importSolvableQueries(solvableQueriesPath(group), group).length);
    assert.deepEqual(counts, [153, 163, 158, 124, 106, 61]);
    const queries = queryGroups.flatMap((group) => importSolvableQueries(solvableQueriesPath(group), group));
    const messi = queries.find((query) => query.queryId === '588' && query.group === 'G1_instruction');
    assert.ok(messi);
    assert.deepEqual(messi.relevantApis, [['TheClique', 'Transfermarkt search'], ['TheClique', 'Transfermarkt details']]);
    for (const query of queries) {
      const { tools } = exposeApis(query.apis);
      assert.ok(tools.every((tool) => tool.name.length <= 64 && /^[a-z0-9_^\u4e00-\u9fa5]+$|^Finish$/.test(tool.name)), query.queryId);
      for (const [tool, apiName] of query.relevantApis) {
        const relevant = query.apis.find((candidate) => candidate.tool_name === tool && candidate.api_name === apiName);
        if (relevant) assert.ok(tools.some((candidate) => candidate.name === functionName(apiName, tool)));
      }
    }
  });
});

describe('virtual API: canonical cache and seeded template simulator', () => {
  test('the simulator fills the template shape, the same call always gets the same bytes', () => {
    const address = { category: 'Data', tool: 'TheClique', api: 'Transfermarkt search' };
    const first = simulateResponse(address, { name: 'messi' }, api.template_response, 1);
    assert.equal(first.error, '');
    assert.equal(simulateResponse(address, { name: 'messi' }, api.template_response, 1).response, first.response);
    assert.notEqual(simulateResponse(address, { name: 'ronaldo' }, api.template_response, 1).response, first.response);
    const body = JSON.parse(first.response) as { results: { id: string; name: string; market_value: number }[]; total: number; tags: string[]; active: boolean; extra: null };
    assert.equal(body.results.length, 2);
    assert.equal(body.results[0].name, 'messi', 'a field named like an argument echoes it');
    assert.equal(typeof body.results[0].market_value, 'number');
    assert.ok(Number.isInteger(body.total));
    assert.equal(body.tags.length, 3);
    assert.equal(typeof body.active, 'boolean');
    assert.equal(body.extra, null);
    assert.match(simulateResponse(address, {}, undefined, 1).response, /Transfermarkt search completed/);
  });

  test('cache keys are canonical (key order does not matter) and persist in files', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolbench-cache-'));
    let simulated = 0;
    const virtual = createVirtualApi({ cache: createFileResponseCache(directory), seed: 3, simulator: () => ({ error: '', response: `answer ${simulated += 1}` }) });
    assert.deepEqual(await virtual.call(api, '{"name":"messi","limit":5}'), { response: { error: '', response: 'answer 1' }, source: 'simulator' });
    assert.deepEqual(await virtual.call(api, '{"limit":5,"name":"messi"}'), { response: { error: '', response: 'answer 1' }, source: 'cache' });
    const file = join(directory, 'Data', 'theclique', 'transfermarkt_search.json');
    assert.ok(existsSync(file));
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { '{"limit":5,"name":"messi"}': { error: '', response: 'answer 1' } });
    const rerun = createVirtualApi({ cache: createFileResponseCache(directory), seed: 3, simulator: () => assert.fail('a rerun must read the cache') });
    assert.equal((await rerun.call(api, '{"name":"messi","limit":5}')).source, 'cache');
    assert.deepEqual(await virtual.call(api, '{"name":'), { response: toolInputParseError, source: 'parse-error' });
    assert.equal((await createVirtualApi({ cache: createMemoryResponseCache(), seed: 3 }).call(api, '')).source, 'simulator');
  });

  test('a StableToolBench cache file (one object, no final newline) is read, and new answers are appended a line each', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolbench-cache-'));
    const file = join(directory, 'Data', 'theclique', 'transfermarkt_search.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ '{"limit":5,"name":"messi"}': { error: '', response: 'from StableToolBench' } }));
    const virtual = createVirtualApi({ cache: createFileResponseCache(directory), seed: 3, simulator: () => ({ error: '', response: 'simulated' }) });
    assert.deepEqual(await virtual.call(api, '{"name":"messi","limit":5}'), { response: { error: '', response: 'from StableToolBench' }, source: 'cache' });
    assert.equal((await virtual.call(api, '{"name":"ronaldo"}')).source, 'simulator');
    assert.equal(readFileSync(file, 'utf8'), '{"{\\"limit\\":5,\\"name\\":\\"messi\\"}":{"error":"","response":"from StableToolBench"}}\n{"{\\"name\\":\\"ronaldo\\"}":{"error":"","response":"simulated"}}\n');
    // A line cut by a kill after earlier lines is dropped before the next answer is appended.
    appendFileSync(file, '{"{\\"name\\":\\"pele\\"}":{"error":"","resp');
    const rerun = createVirtualApi({ cache: createFileResponseCache(directory), seed: 3, simulator: () => ({ error: '', response: 'pele simulated' }) });
    assert.equal((await rerun.call(api, '{"name":"pele"}')).source, 'simulator');
    assert.equal(readFileSync(file, 'utf8').split('\n').length, 4);
    assert.equal((await createVirtualApi({ cache: createFileResponseCache(directory), seed: 3 }).call(api, '{"name":"pele"}')).source, 'cache');
  });

  test('a cache file that cannot be read where it is: a ConfigError naming it and the cache folder, not "delete the file"', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolbench-cache-'));
    writeFileSync(join(directory, 'Data'), 'a file where the category folder goes');
    await assert.rejects(createVirtualApi({ cache: createFileResponseCache(directory), seed: 3 }).call(api, '{"name":"messi"}'), (error: unknown) =>
      error instanceof ConfigError && error.code === 'input.unreadable' && /transfermarkt_search\.json' cannot be used: a part of the path is a file/.test(error.message)
      && (error.fix ?? '').includes(`make ${directory} a folder you can read and write`));
    // The same when the folder goes away between reading and writing: the write says so.
    const later = mkdtempSync(join(tmpdir(), 'toolbench-cache-'));
    const cache = createFileResponseCache(later);
    const address = { category: 'Data', tool: 'theclique', api: 'transfermarkt_search' };
    assert.equal(cache.get(address, { name: 'messi' }), undefined);
    writeFileSync(join(later, 'Data'), '');
    assert.throws(() => cache.set(address, { name: 'messi' }, { error: '', response: 'x' }), (error: unknown) =>
      error instanceof ConfigError && error.code === 'input.unreadable' && /cannot be used: cannot write to it: /.test(error.message));
  });

  test('a damaged cache file is a ConfigError naming the file, whatever the damage', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolbench-cache-'));
    const file = join(directory, 'Data', 'theclique', 'transfermarkt_search.json');
    mkdirSync(dirname(file), { recursive: true });
    for (const [text, reason] of [
      ['{"a": {"error": "", "resp', /: it is not \{arguments: \{error, response\}\}/],
      ['{"a": "not an entry"}', /: it is not \{arguments/],
      ['[]', /: it is not \{arguments/],
      ['{"a": {"error": "", "response": "x"}}\nnot json\n{"b": {"error": "", "response": "y"}}\n', /: line 2 is not \{arguments/],
    ] as const) {
      writeFileSync(file, text);
      await assert.rejects(createVirtualApi({ cache: createFileResponseCache(directory), seed: 3 }).call(api, '{"name":"messi"}'), (error: unknown) =>
        error instanceof ConfigError && error.message.includes(file) && reason.test(error.message) && /delete the file/.test(error.fix ?? ''));
    }
  });
});

describe('Solvable Pass Rate and the evaluator', () => {
  test('(Solved + 0.5 Unsure) / n on hand-made verdicts', () => {
    assert.equal(solvablePassRate(['Solved', 'Unsure', 'Unsolved', 'Solved']), 0.625);
    assert.equal(solvablePassRate(['Unsure']), 0.5);
    assert.equal(solvablePassRate([]), 0);
  });

  test('status parsing from function arguments, JSON text and prose', () => {
    assert.equal(parseAnswerStatus({ answer_status: 'Solved' }), 'Solved');
    assert.equal(parseAnswerStatus('{"answer_status": "unsure"}'), 'Unsure');
    assert.equal(parseAnswerStatus('The answer is incomplete, so: Unsolved'), 'Unsolved');
    assert.equal(parseAnswerStatus('no verdict'), undefined);
    assert.equal(parseAnswerStatus({ answer_status: 'Maybe' }), undefined);
  });

  test('no Finish or a give-up is Unsolved without asking; Unsure goes to the second prompt', async () => {
    const asked: string[] = [];
    const judge = (first: AnswerStatus, second: AnswerStatus): Judge => ({
      async checkAnswerStatus() { asked.push('check'); return first; },
      async parseAnswerStatus() { asked.push('parse'); return second; },
    });
    assert.equal(await judgeAnswer('q', { kind: 'no-finish' }, '', judge('Solved', 'Solved')), 'Unsolved');
    assert.equal(await judgeAnswer('q', { kind: 'give-up' }, '', judge('Solved', 'Solved')), 'Unsolved');
    assert.equal(await judgeAnswer('q', { kind: 'answer', finalAnswer: ' ' }, '', judge('Solved', 'Solved')), 'Unsolved');
    assert.deepEqual(asked, []);
    assert.equal(await judgeAnswer('q', { kind: 'answer', finalAnswer: 'Messi played for...' }, '{}', judge('Solved', 'Unsolved')), 'Solved');
    assert.equal(await judgeAnswer('q', { kind: 'answer', finalAnswer: 'x' }, '{}', judge('Unsure', 'Unsolved')), 'Unsolved');
    assert.deepEqual(asked, ['check', 'check', 'parse']);
  });

  test('prompt template: blocks parsed, placeholders filled, one function to call', () => {
    const prompts = parseEvaluatorTemplate('<function>\n<name>check_answer_status</name>\n<description>\nQuery:\n{query}\nAnswer:\n{answer}\n</description>\n</function>');
    const request = evaluatorRequest(prompts, 'check_answer_status', { query: 'Who?', answer: 'Messi' });
    assert.deepEqual(request.messages, [{ role: 'user', content: 'Query:\nWho?\nAnswer:\nMessi' }]);
    assert.deepEqual(request.tools[0].inputSchema, { type: 'object', properties: { answer_status: { type: 'string', enum: ['Unsure', 'Unsolved', 'Solved'] } }, required: ['answer_status'] });
  });

  test('the StableToolBench template loads', { skip: !existsSync(evaluatorTemplatePath()) && 'needs ../shared/data/stabletoolbench (not in a clone)' }, () => {
    const prompts = loadEvaluatorPrompts();
    assert.deepEqual([...prompts.keys()].sort(), ['check_answer_status', 'check_task_solvable', 'parse_answer_status', 'select_better_answer']);
    const message = evaluatorRequest(prompts, 'check_answer_status', { query: 'Q?', answer: 'A.' }).messages[0];
    assert.equal(message.role, 'user');
    const content = message.role === 'user' ? message.content : '';
    assert.ok(content.includes('Query:\nQ?\nAnswer:\nA.'));
    assert.ok(!content.includes('{query}'));
  });
});

describe('toolbench environment', () => {
  test('calls answered by the virtual API with status codes; Finish records the answer; unknown names get status 1', async () => {
    const { createToolbenchEnvironment, relevantApiCalls } = await import('../../../src/suites/toolbench/toolbench-environment.ts');
    const { createToolCall } = await import('../../../src/core/tool.ts');
    const environment = createToolbenchEnvironment([api], createVirtualApi({ cache: createMemoryResponseCache(), seed: 5 }));
    const signal = new AbortController().signal;
    assert.deepEqual(environment.listTools().map((tool) => tool.name), ['transfermarkt_search_for_theclique', 'Finish']);
    const [oracle] = relevantApiCalls([api], [['TheClique', 'Transfermarkt search']]);
    assert.deepEqual(oracle.arguments, { name: 'messi' });
    const answered = await environment.callTool(createToolCall('1', 'transfermarkt_search_for_theclique', JSON.stringify(oracle.arguments)), { signal });
    assert.ok(answered.ok);
    assert.equal((JSON.parse(answered.output as string) as { error: string }).error, '');
    const unknown = await environment.callTool(createToolCall('2', 'nope', '{}'), { signal });
    assert.deepEqual(unknown, { ok: false, error: { code: 'tool.unknown', message: 'No such function name: nope' } });
    const broken = await environment.callTool(createToolCall('3', 'transfermarkt_search_for_theclique', '{"name":'), { signal });
    assert.equal(broken.ok, false);
    await environment.callTool(createToolCall('4', 'Finish', '{"return_type":"give_answer","final_answer":"Messi: Barcelona, PSG, Inter Miami."}'), { signal });
    const state = environment.state();
    assert.deepEqual(state.calls.map((call) => call.status), [0, 1, 2, 3]);
    assert.deepEqual(state.finalStep, { kind: 'answer', finalAnswer: 'Messi: Barcelona, PSG, Inter Miami.' });
  });

  test('the oracle chain of every solvable query finishes with every call answered', { skip: !hasQueries && 'needs ../shared/data/stabletoolbench (not in a clone)' }, async () => {
    const { createToolbenchEnvironment, relevantApiCalls } = await import('../../../src/suites/toolbench/toolbench-environment.ts');
    const { createToolCall } = await import('../../../src/core/tool.ts');
    const signal = new AbortController().signal;
    const virtualApi = createVirtualApi({ cache: createMemoryResponseCache(), seed: 1 });
    let queries = 0;
    for (const group of queryGroups) {
      for (const query of importSolvableQueries(solvableQueriesPath(group), group)) {
        const environment = createToolbenchEnvironment(query.apis, virtualApi);
        const chain = relevantApiCalls(query.apis, query.relevantApis);
        assert.ok(chain.length > 0, `${group}/${query.queryId} has a relevant API in its list`);
        for (const [index, step] of chain.entries()) {
          const result = await environment.callTool(createToolCall(String(index), functionName(step.api.api_name, step.api.tool_name), JSON.stringify(step.arguments)), { signal });
          assert.ok(result.ok, `${group}/${query.queryId} ${step.api.api_name}`);
        }
        await environment.callTool(createToolCall('f', 'Finish', '{"return_type":"give_answer","final_answer":"done"}'), { signal });
        assert.equal(environment.state().finalStep.kind, 'answer');
        queries += 1;
      }
    }
    assert.equal(queries, 765);
  });
});
