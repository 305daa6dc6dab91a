import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createToolCall } from '../../../src/core/tool.ts';
import { analyzeCallGraph } from '../../../src/suites/nestful/call-graph.ts';
import { createNestfulEnvironment, loggedCalls } from '../../../src/suites/nestful/nestful-environment.ts';
import type { NestfulTool } from '../../../src/suites/nestful/nestful-sample.ts';
import { toToolSpec } from '../../../src/suites/nestful/nestful-sample.ts';

const binary = (name: string): NestfulTool => ({
  name, description: name,
  parameters: { arg_0: { description: 'first', type: 'int or float' }, arg_1: { description: 'second', type: 'int or float' } },
  output_parameters: { result: { description: 'result', type: 'int or float' } },
});

describe('interactive environment', () => {
  test('labels successful calls and resolves "$var_N.result$" (with or without the trailing $)', async () => {
    const tools = [binary('add'), binary('divide')];
    const environment = createNestfulEnvironment(tools, tools.map(toToolSpec));
    const signal = new AbortController().signal;
    const first = await environment.callTool(createToolCall('1', 'add', '{"arg_0": 4, "arg_1": 2}'), { signal });
    assert.deepEqual(first, { ok: true, output: { label: '$var_1', result: 6 } });
    const second = await environment.callTool(createToolCall('2', 'divide', '{"arg_0": 30, "arg_1": "$var_1.result"}'), { signal });
    assert.deepEqual(second, { ok: true, output: { label: '$var_2', result: 5 } });
    // Named arguments go in the tool's parameter order, whatever order the model wrote them in.
    const named = await environment.callTool(createToolCall('3', 'divide', '{"arg_1": 3, "arg_0": "$var_2.result$"}'), { signal });
    assert.deepEqual(named, { ok: true, output: { label: '$var_3', result: 5 / 3 } });
    const failures = [
      [createToolCall('4', 'multiply', '{}'), 'tool.unknown'],
      [createToolCall('5', 'add', '{"x": 1, "arg_1": 2}'), 'arguments.invalid'],
      [createToolCall('6', 'add', '{"arg_0": "$var_9.result$", "arg_1": 2}'), 'arguments.invalid'],
      [createToolCall('7', 'add', '{"arg_0": 1}'), 'arguments.invalid'],
      [createToolCall('8', 'divide', '{"arg_0": 1, "arg_1": 0}'), 'execution.error'],
      [createToolCall('9', 'add', 'not json'), 'arguments.invalid'],
    ] as const;
    for (const [call, code] of failures) {
      const result = await environment.callTool(call, { signal });
      assert.equal(result.ok ? 'ok' : result.error.code, code, call.argumentsText);
    }
    const log = loggedCalls(await environment.snapshotState());
    assert.equal(log.length, 9);
    assert.equal(log.filter((call) => call.ok).length, 3);
  });

  test('tool specs accept literal values and reference strings', () => {
    const spec = toToolSpec(binary('add'));
    assert.deepEqual(spec.inputSchema.required, ['arg_0', 'arg_1']);
    assert.deepEqual((spec.inputSchema.properties as Record<string, { type: unknown }>).arg_0.type, ['number', 'string']);
  });
});

describe('call graph statistics (paper 4.5)', () => {
  const call = (label: string, ...references: string[]) => ({
    name: 'f', label, arguments: Object.fromEntries(references.map((reference, index) => [`arg_${index}`, `$${reference}.result$`])),
  });

  test('depth, dependencies, fan-in and a canonical pattern', () => {
    assert.deepEqual(analyzeCallGraph([call('$var_1'), call('$var_2')]), { calls: 2, depth: 0, dependencies: 0, maxFanIn: 0, pattern: 'none' });
    assert.deepEqual(analyzeCallGraph([call('$var_1'), call('$var_2', 'var_1')]), { calls: 2, depth: 1, dependencies: 1, maxFanIn: 1, pattern: 'A->B' });
    assert.deepEqual(analyzeCallGraph([call('$var_1'), call('$var_2'), call('$var_3', 'var_1', 'var_2')]),
      { calls: 3, depth: 1, dependencies: 2, maxFanIn: 2, pattern: '{A,B}->C' });
    // The same reference twice is one dependency; code-flavour labels ($var1) work the same way.
    assert.deepEqual(analyzeCallGraph([call('$var1'), call('$var2', 'var1', 'var1'), call('$var3', 'var2')]),
      { calls: 3, depth: 2, dependencies: 2, maxFanIn: 1, pattern: 'A->B, B->C' });
    // Letters inside a set are sorted, so one shape prints one way.
    assert.equal(analyzeCallGraph([call('$var_1'), call('$var_2'), call('$var_3', 'var_2'), call('$var_4', 'var_1', 'var_3')]).pattern, 'A->B, {B,C}->D');
  });
});
