import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ConfigError } from '../../../src/core/errors.ts';
import { canonicalJson } from '../../../src/core/json.ts';
import { Rng } from '../../../src/core/rng.ts';
import { taskSchema } from '../../../src/core/task.ts';
import type { Task } from '../../../src/core/task.ts';
import { resolveKnobs } from '../../../src/suites/knob.ts';
import { describeFunction, parseFunctionDescription } from '../../../src/suites/funcgen/function-description.ts';
import type { FuncgenExpected } from '../../../src/suites/funcgen/funcgen-task.ts';
import { funcgenExpectedSchema, readFuncgenTask } from '../../../src/suites/funcgen/funcgen-task.ts';
import { longestPaths, topologicalOrder } from '../../../src/suites/funcgen/graph.ts';
import { createNameSource } from '../../../src/suites/funcgen/naming.ts';
import { funcgenSuite } from '../../../src/suites/funcgen/index.ts';
import { parseFuncgenParams } from '../../../src/suites/funcgen/knobs.ts';
import type { FuncgenParams } from '../../../src/suites/funcgen/knobs.ts';
import { paperKnobGrid } from '../../../src/suites/funcgen/paper-grid.ts';
import { generateFuncgenTask } from '../../../src/suites/funcgen/task-generator.ts';

const defaults = parseFuncgenParams(resolveKnobs('funcgen', funcgenSuite.knobs, {}));

/** Checks every structural property the paper's generator promises; returns nothing, asserts. */
function checkStructure(params: FuncgenParams, expected: FuncgenExpected, label: string): void {
  const { functions } = expected;
  const index = new Map(functions.map((fn, position) => [fn.name, position]));
  const edges = expected.edges.map(([parent, child]) => [index.get(parent), index.get(child)] as [number, number]);
  const role = (position: number) => functions[position].role;
  const count = (kind: string) => functions.filter((fn) => fn.role === kind).length;

  // Exact counts.
  assert.equal(count('core'), params.core, `${label}: core count`);
  assert.equal(count('connected'), params.connected, `${label}: CIN count`);
  assert.equal(count('disconnected'), params.disconnected, `${label}: DIN count`);
  assert.equal(expected.solution.length, params.core, `${label}: minimal calls`);

  // Acyclic, and the longest core path is exactly the depth.
  assert.ok(topologicalOrder(functions.length, edges), `${label}: acyclic`);
  const coreIds = functions.flatMap((fn, position) => (fn.role === 'core' ? [position] : []));
  const remap = new Map(coreIds.map((id, position) => [id, position]));
  const coreEdges = edges.filter(([parent, child]) => role(parent) === 'core' && role(child) === 'core')
    .map(([parent, child]) => [remap.get(parent), remap.get(child)] as [number, number]);
  const paths = longestPaths(coreIds.length, coreEdges);
  assert.equal(paths.longest, params.depth, `${label}: longest core path`);
  // Chain (d) + added parents (n_core - d - 1) + at most 2·n_core extra edges.
  assert.ok(coreEdges.length >= params.core - 1 && coreEdges.length <= params.core - 1 + 2 * params.core, `${label}: core edge count`);

  // Every core function is needed: an ancestor of the target, which is the only core sink.
  const target = remap.get(index.get(expected.target.function) as number) as number;
  assert.equal(role(index.get(expected.target.function) as number), 'core');
  for (let node = 0; node < coreIds.length; node += 1) {
    assert.ok(paths.reaches(node, target), `${label}: core node ${node} reaches the target`);
  }
  // The solution is a topological order of the core.
  const seen = new Set<string>();
  for (const name of expected.solution) {
    const fn = functions[index.get(name) as number];
    for (const parameter of fn.parameters) {
      if (parameter.source.kind === 'function') assert.ok(seen.has(parameter.source.function), `${label}: solution order`);
    }
    seen.add(name);
  }

  // CINs: children of 1–2 core nodes only, never parents. DINs: no edge to or from anything but DINs.
  for (const [parent, child] of edges) {
    if (role(child) === 'connected') assert.equal(role(parent), 'core', `${label}: CIN parent is core`);
    assert.notEqual(role(parent), 'connected', `${label}: CIN has no children`);
    assert.equal(role(parent) === 'disconnected', role(child) === 'disconnected', `${label}: DINs disconnected`);
    if (role(child) === 'core') assert.equal(role(parent), 'core', `${label}: core parents are core`);
  }
  for (const [position, fn] of functions.entries()) {
    if (fn.role !== 'connected') continue;
    const parents = edges.filter(([, child]) => child === position).length;
    assert.ok(parents >= 1 && parents <= 2, `${label}: CIN connected to the core`);
  }
  const dinEdges = edges.filter(([parent]) => role(parent) === 'disconnected').length;
  assert.ok(dinEdges <= Math.floor(params.disconnected / 2), `${label}: at most floor(n_dis/2) DIN edges`);

  // Unique names, types shared, subtypes unique, links by type+subtype (functions) or name (inputs).
  const functionNames = functions.map((fn) => fn.name);
  assert.equal(new Set(functionNames).size, functionNames.length, `${label}: unique function names`);
  for (const name of functionNames) assert.match(name, /^func_[a-z]{3}$/);
  const variables = [...expected.inputs, ...functions.map((fn) => fn.output)];
  const linkedParameters = functions.flatMap((fn) => fn.parameters.filter((parameter) => parameter.source.kind === 'function'));
  const allNames = [...variables.map((variable) => variable.name), ...linkedParameters.map((parameter) => parameter.name)];
  assert.equal(new Set(allNames).size, allNames.length, `${label}: unique variable names`);
  for (const name of allNames) assert.match(name, /^[a-z]{4,6}$/);
  assert.equal(new Set(variables.map((variable) => variable.subtype)).size, variables.length, `${label}: unique subtypes`);
  assert.ok(new Set(variables.map((variable) => variable.type)).size < variables.length, `${label}: types are shared`);
  for (const variable of variables) assert.ok(variable.value >= 100 && variable.value <= 999, `${label}: 3-digit values`);
  // DINs have their own types: never type-compatible with a core or connected function (section 4.5).
  const { distractor, connectedSide } = typesBySide(expected);
  for (const type of distractor) assert.ok(!connectedSide.has(type), `${label}: DIN type ${type} is also a core/CIN type`);
  const inputNames = new Map(expected.inputs.map((input) => [input.name, input]));
  const usedInputs: string[] = [];
  for (const fn of functions) {
    for (const parameter of fn.parameters) {
      if (parameter.source.kind === 'input') {
        const input = inputNames.get(parameter.name);
        assert.ok(input, `${label}: input parameter named after a prompt input`);
        assert.deepEqual([parameter.type, parameter.subtype, parameter.value], [input.type, input.subtype, input.value]);
        usedInputs.push(parameter.name);
      } else {
        const producer = functions[index.get(parameter.source.function) as number];
        assert.deepEqual([parameter.type, parameter.subtype, parameter.value], [producer.output.type, producer.output.subtype, producer.output.value]);
      }
    }
    assert.ok(fn.parameters.length >= 1, `${label}: every function has inputs`);
  }
  assert.equal(new Set(usedInputs).size, expected.inputs.length, `${label}: each input feeds exactly one function`);
  assert.equal(usedInputs.length, expected.inputs.length);
}

/** The types of DIN variables, and of core and CIN variables (outputs, prompt inputs and linked parameters). */
function typesBySide(expected: FuncgenExpected): { distractor: Set<string>; connectedSide: Set<string> } {
  const typesOf = (disconnected: boolean) => new Set(expected.functions.filter((fn) => (fn.role === 'disconnected') === disconnected)
    .flatMap((fn) => [fn.output.type, ...fn.parameters.map((parameter) => parameter.type)]));
  return { distractor: typesOf(true), connectedSide: typesOf(false) };
}

describe('funcgen generator', () => {
  test('1,150 graphs over the paper grid (230 settings x 5 seeds): counts, depth, acyclicity, connectivity, names', () => {
    const grid = paperKnobGrid();
    assert.equal(grid.length, 230);
    let checked = 0;
    for (const [setting, params] of grid.entries()) {
      for (let seed = 0; seed < 5; seed += 1) {
        const task = generateFuncgenTask({ seed: seed * 1000 + setting, index: 0, params });
        checkStructure(params, readFuncgenTask(task).expected, `${JSON.stringify(params)} seed ${seed}`);
        checked += 1;
      }
    }
    assert.equal(checked, 1150);
  });

  test('every generated ground truth passes the schema (the generator marks it sound, so no run checks it again) and agrees with its tools', () => {
    for (const [setting, params] of paperKnobGrid().entries()) {
      for (const restate of [false, true]) {
        const task = generateFuncgenTask({ seed: 7 * setting + Number(restate), index: setting, params: { ...params, restate } });
        const parsed = funcgenExpectedSchema.safeParse(JSON.parse(JSON.stringify(task.expected)));
        assert.ok(parsed.success, `${JSON.stringify(params)}: ${parsed.error?.issues[0]?.message}`);
        // A copy, as a tasks file gives it: the generator's own object is not walked again.
        assert.equal(funcgenSuite.taskProblem?.(JSON.parse(JSON.stringify(task)) as Task), undefined, JSON.stringify(params));
      }
    }
  });

  test('no distractor variable shares a type with a core variable over the paper grid (was 64% in version 1)', () => {
    // DIN outputs over the grid: 23 depth settings (4 + 9 + 10) x 105 DINs per depth setting
    // (0 + 0+10+5 + 0+20+10 + 0+40+20 over the ten irrelevant splits) x 5 seeds = 12,075.
    let dinOutputs = 0;
    let dinVariables = 0;
    let sharingCore = 0;
    for (const [setting, params] of paperKnobGrid().entries()) {
      for (let seed = 0; seed < 5; seed += 1) {
        const { expected } = readFuncgenTask(generateFuncgenTask({ seed: seed * 1000 + setting, index: 0, params }));
        const coreTypes = new Set(expected.functions.filter((fn) => fn.role === 'core')
          .flatMap((fn) => [fn.output.type, ...fn.parameters.map((parameter) => parameter.type)]));
        for (const fn of expected.functions.filter((candidate) => candidate.role === 'disconnected')) {
          dinOutputs += 1;
          for (const variable of [fn.output, ...fn.parameters.filter((parameter) => parameter.source.kind === 'input')]) {
            dinVariables += 1;
            if (coreTypes.has(variable.type)) sharingCore += 1;
          }
        }
      }
    }
    assert.equal(dinOutputs, 12_075);
    assert.ok(dinVariables > dinOutputs);
    assert.equal(sharingCore, 0);
  });

  test('type pools: about one type per four variables, at least two, disjoint between core and distractors', () => {
    const names = createNameSource(new Rng(7), { core: 9, distractor: 22 });
    const coreTypes = new Set(Array.from({ length: 200 }, () => names.variableKind('core').type));
    const distractorTypes = new Set(Array.from({ length: 200 }, () => names.variableKind('distractor').type));
    assert.equal(coreTypes.size, 2);        // max(2, round(9 / 4)) = 2
    assert.equal(distractorTypes.size, 6);  // max(2, round(22 / 4)) = 6 (5.5 rounds up)
    for (const type of distractorTypes) assert.ok(!coreTypes.has(type));
    const withoutDistractors = createNameSource(new Rng(7), { core: 4, distractor: 0 });
    assert.throws(() => withoutDistractors.variableKind('distractor'), /no 'distractor' type pool/);
  });

  test('same seed and knobs give byte-identical tasks; another seed or index differs', async () => {
    const first = await funcgenSuite.generate({ seed: 42, count: 20, params: { ...defaults } });
    const second = await funcgenSuite.generate({ seed: 42, count: 20, params: { ...defaults } });
    assert.equal(JSON.stringify(first), JSON.stringify(second));
    assert.equal(canonicalJson(first), canonicalJson(second));
    const other = await funcgenSuite.generate({ seed: 43, count: 20, params: { ...defaults } });
    assert.notEqual(JSON.stringify(first[0].tools), JSON.stringify(other[0].tools));
    assert.notEqual(JSON.stringify(first[0].tools), JSON.stringify(first[1].tools));
    // Task i does not depend on how many tasks were asked for.
    const fewer = await funcgenSuite.generate({ seed: 42, count: 3, params: { ...defaults } });
    assert.equal(JSON.stringify(fewer), JSON.stringify(first.slice(0, 3)));
  });

  test('generated bytes are pinned (a change here must bump the suite version)', async () => {
    const tasks = await funcgenSuite.generate({ seed: 1, count: 5, params: { ...defaults } });
    const digest = createHash('sha256').update(canonicalJson(tasks)).digest('hex');
    assert.equal(digest, PINNED_DIGEST);
  });

  test('task shape: id, modes, limits = 2x minimum calls, stats, valid against the task schema', async () => {
    const [task] = await funcgenSuite.generate({ seed: 9, count: 1, params: { ...defaults, core: 10, depth: 5, connected: 10, disconnected: 0 } });
    assert.equal(task.id, 'funcgen/9/0');
    assert.deepEqual(task.suite, { id: 'funcgen', version: funcgenSuite.version });
    assert.deepEqual(task.modes, ['calls', 'react']);
    assert.deepEqual(task.limits, { maxTurns: 25, maxToolCalls: 20, timeLimitMs: 300_000 });
    assert.deepEqual(task.params, { core: 10, depth: 5, connected: 10, disconnected: 0, restate: false });
    assert.equal(task.stats.calls, 10);
    assert.equal(task.stats.depth, 5);
    assert.equal(task.stats.nodes, 20);
    assert.equal(task.tools.length, 20);
    assert.ok(taskSchema.safeParse(JSON.parse(JSON.stringify(task))).success);
  });

  test('prompt is appendix B.3\'s, one input per line', async () => {
    const [task] = await funcgenSuite.generate({ seed: 3, count: 1, params: { ...defaults } });
    const { expected } = readFuncgenTask(task);
    assert.equal(task.prompt.length, 1);
    const lines = task.prompt[0].content.split('\n');
    assert.equal(lines[0], `Using the tools at your disposal, use functions until you are able to give me the correct value of variable ${expected.target.variable}.`);
    assert.equal(lines[lines.length - 1], 'You have all the information you need to get the correct result.');
    const inputLines = lines.slice(1, -1);
    assert.equal(inputLines.length, expected.inputs.length);
    assert.deepEqual([...inputLines].sort(), expected.inputs.map((input) => `Variable ${input.name} = ${input.value}`).sort());
  });

  test('tool descriptions have the exact documented shape; schemas are integer, all required, no extras', async () => {
    assert.equal(
      describeFunction({
        parameters: [{ name: 'mfmjsy', type: 'type_uxe', subtype: 'subtype_muw' }, { name: 'riivq', type: 'type_beo', subtype: 'subtype_dej' }],
        output: { name: 'sjyav', type: 'type_wdc', subtype: 'subtype_uqq' },
      }),
      'Processes variable mfmjsy (type_uxe with subtype_muw), variable riivq (type_beo with subtype_dej) to produce variable sjyav (type_wdc with subtype_uqq)',
    );
    const [task] = await funcgenSuite.generate({ seed: 5, count: 1, params: { ...defaults, core: 10, depth: 4, connected: 5, disconnected: 5 } });
    const { expected } = readFuncgenTask(task);
    const shape = /^Processes variable [a-z]+ \(type_[a-z]{3} with subtype_[a-z]{3}\)(, variable [a-z]+ \(type_[a-z]{3} with subtype_[a-z]{3}\))* to produce variable [a-z]+ \(type_[a-z]{3} with subtype_[a-z]{3}\)$/;
    for (const tool of task.tools) {
      const fn = expected.functions.find((candidate) => candidate.name === tool.name);
      assert.ok(fn);
      assert.match(tool.description, shape);
      const signature = parseFunctionDescription(tool.description);
      assert.deepEqual(signature?.parameters.map((parameter) => parameter.name), fn.parameters.map((parameter) => parameter.name));
      assert.equal(signature?.output.name, fn.output.name);
      assert.deepEqual(tool.inputSchema, {
        type: 'object',
        properties: Object.fromEntries(fn.parameters.map((parameter) => [parameter.name, { type: 'integer' }])),
        required: fn.parameters.map((parameter) => parameter.name),
        additionalProperties: false,
      });
    }
  });

  test('bad knob combinations are ConfigErrors naming the knob and the valid range', async () => {
    await assert.rejects(funcgenSuite.generate({ seed: 1, count: 1, params: { ...defaults, core: 5, depth: 5 } }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, 'config.invalid-knob');
      assert.match(error.message, /knob 'depth' is 5, but with core=5 it must be in \[1, 4\]/);
      assert.match(error.message, /--set depth=<1\.\.4>/);
      return true;
    });
    assert.throws(() => parseFuncgenParams({ ...defaults, core: 1, depth: 1 }), /knob 'core' is 1, outside \[2, 200\]/);
    assert.throws(() => parseFuncgenParams({ ...defaults, connected: -1 }), /knob 'connected' is -1/);
    assert.throws(() => parseFuncgenParams({ ...defaults, restate: 'yes' }), /knob 'restate' is invalid/);
    assert.throws(() => resolveKnobs('funcgen', funcgenSuite.knobs, { cores: '5' }), /has no knob 'cores'/);
    assert.deepEqual(resolveKnobs('funcgen', funcgenSuite.knobs, { core: '10', restate: 'true' }),
      { core: 10, depth: 3, connected: 5, disconnected: 5, restate: true });
  });
});

const PINNED_DIGEST = 'b99d7edca9ab233d416261ec66af78dea93aecebdf2b1edcfe60ed82f4f8a65f';

describe('funcgen task stream', () => {
  test('tasks are made one at a time: a run of a billion tasks starts at once, and the stream is generate\'s', async () => {
    // Holding every task first (~30 KB each) would need ~3 GB at 100,000 and cannot even allocate a billion.
    const params = resolveKnobs('funcgen', funcgenSuite.knobs, {});
    const stream = funcgenSuite.streamTasks?.({ seed: 5, count: 1_000_000_000, params });
    assert.ok(stream, 'funcgen has a task stream');
    const first: unknown[] = [];
    for await (const task of stream) {
      first.push(task);
      if (first.length === 3) break;
    }
    const generated = await funcgenSuite.generate({ seed: 5, count: 3, params });
    assert.equal(canonicalJson(first), canonicalJson(generated));
  });
});
