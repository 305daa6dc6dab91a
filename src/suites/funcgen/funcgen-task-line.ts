/**
 * A funcgen task's JSON line written straight from its draw, without making the task: byte for byte
 * `JSON.stringify(generateFuncgenTask(request))`. Making a task's objects and serialising them was most of the cost of
 * `toolforge generate funcgen`: its tool schemas key on fresh random names (each new key interned, in a slow
 * dictionary-mode object), and JSON.stringify walks ~1,000 values a task. Written here it takes about half the time.
 *
 * Names, types and subtypes are letters, digits and '_' (naming.ts) and descriptions are built from them, so they go
 * in as they are; the prompt (newlines) and the knobs go through JSON.stringify. The suite conformance tests and
 * test/suites/funcgen/task-line.test.ts hold every line to JSON.stringify of its task.
 */
import { describeFunction } from './function-description.ts';
import type { FuncgenFunction, FuncgenVariable } from './funcgen-task.ts';
import type { FuncgenParams } from './knobs.ts';
import { drawFuncgenTask, funcgenSuiteId, funcgenVersion } from './task-generator.ts';

const taskStart = `{"schemaVersion":1,"id":"`;
const suiteJson = `"suite":${JSON.stringify({ id: funcgenSuiteId, version: funcgenVersion })}`;

export function funcgenTaskLine(request: { seed: number; index: number; params: FuncgenParams }): { id: string; line: string } {
  const draw = drawFuncgenTask(request);
  const { expected, limits, stats } = draw;
  const query = JSON.stringify(draw.query);
  let line = `${taskStart}${draw.id}",${suiteJson},"seed":${draw.taskSeed},"params":${JSON.stringify(draw.params)},"prompt":[{"role":"user","content":${query}}],"query":${query},"tools":[`;
  draw.toolFunctions.forEach((fn, index) => { line += (index === 0 ? '' : ',') + toolJson(fn); });
  const { target } = expected;
  line += `],"modes":["calls","react"],"expected":{"target":{"variable":"${target.variable}","value":${target.value},"function":"${target.function}"},"inputs":[`;
  expected.inputs.forEach((input, index) => { line += (index === 0 ? '' : ',') + variableJson(input); });
  line += '],"functions":[';
  expected.functions.forEach((fn, index) => { line += (index === 0 ? '' : ',') + functionJson(fn); });
  line += `],"solution":[${nameList(expected.solution)}],"wrongOutputSalt":${expected.wrongOutputSalt},"edges":[`;
  expected.edges.forEach(([parent, child], index) => { line += `${index === 0 ? '' : ','}["${parent}","${child}"]`; });
  line += `]},"limits":{"maxTurns":${limits.maxTurns},"maxToolCalls":${limits.maxToolCalls},"timeLimitMs":${limits.timeLimitMs}}`;
  line += `,"stats":{"calls":${stats.calls},"depth":${stats.depth},"nodes":${stats.nodes},"core":${stats.core},"connected":${stats.connected},"disconnected":${stats.disconnected},"inputs":${stats.inputs},"edges":${stats.edges}}}`;
  return { id: draw.id, line };
}

/** funcgenToolSpec's tool as JSON. */
function toolJson(fn: FuncgenFunction): string {
  let properties = '';
  let required = '';
  fn.parameters.forEach((parameter, index) => {
    const comma = index === 0 ? '' : ',';
    properties += `${comma}"${parameter.name}":{"type":"integer"}`;
    required += `${comma}"${parameter.name}"`;
  });
  return `{"name":"${fn.name}","description":"${describeFunction(fn)}","inputSchema":{"type":"object","properties":{${properties}},"required":[${required}],"additionalProperties":false}}`;
}

function functionJson(fn: FuncgenFunction): string {
  let parameters = '';
  fn.parameters.forEach((parameter, index) => {
    const source = parameter.source.kind === 'input' ? '{"kind":"input"}' : `{"kind":"function","function":"${parameter.source.function}"}`;
    parameters += `${index === 0 ? '' : ','}{"name":"${parameter.name}","type":"${parameter.type}","subtype":"${parameter.subtype}","value":${parameter.value},"source":${source}}`;
  });
  return `{"name":"${fn.name}","role":"${fn.role}","parameters":[${parameters}],"output":${variableJson(fn.output)}}`;
}

function variableJson(variable: FuncgenVariable): string {
  return `{"name":"${variable.name}","type":"${variable.type}","subtype":"${variable.subtype}","value":${variable.value}}`;
}

function nameList(names: readonly string[]): string {
  return names.length === 0 ? '' : `"${names.join('","')}"`;
}
