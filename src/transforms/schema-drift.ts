/**
 * drift: DynamicToolBench's schema drift as a transform. The model is shown the OLD tools
 * (`task.tools` is untouched: it writes from memory of the documented API); the environment
 * enforces the NEW ones: a call the new schema rejects gets the answer a strict server gives
 * (301 moved / 404 / 400 naming each parameter) as a tool error the model can recover from, and an
 * accepted call is mapped onto the original tool, so the suite's environment and scorer are
 * unchanged. The drifted tools and the change log are the record's `changes`, stored with the run.
 * Built-in models read old-schema gold: their calls are mapped forward (`toNew`), so the oracle
 * still solves every task (in react mode their Action lines are mapped the same way). A tool named
 * `Finish` (the ReAct protocol's final action, StableToolBench's control tool) is not an API and is
 * never drifted. Modes calls and react: sequence and code answers are scored from text. The one
 * exception is webapi, whose code answers send an HTTP request judged against an OpenAPI spec: there
 * the spec is drifted instead of tools, and the task is judged against the new spec and the expected
 * request mapped onto it (src/suites/webapi/drift-task.ts); no wrapper or adapter is needed.
 */
import type { Environment } from '../core/environment.ts';
import { ConfigError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import { canonicalJson } from '../core/json.ts';
import type { AssistantMessage, Message } from '../core/message.ts';
import { formatReactStep, parseReactStep, reactFinishAction } from '../core/react-format.ts';
import type { Rng } from '../core/rng.ts';
import type { Task, TransformRecord } from '../core/task.ts';
import type { ToolCall } from '../core/tool.ts';
import { createToolCall } from '../core/tool.ts';
import type { LanguageModel } from '../models/spec.ts';
import { driftWebapiTask } from '../suites/webapi/drift-task.ts';
import { webapiSuiteId } from '../suites/webapi/webapi-task.ts';
import type { DriftedTools, ServedCall, ToolCallMapper } from './drift/index.ts';
import { createToolCallMapper, driftOperatorIds, driftTools, parseDriftOperatorId } from './drift/index.ts';
import type { TaskTransform, TransformContext } from './spec.ts';

/** The drift a task's origin records (what `apply` stored in `changes`). */
export function driftedToolsOf(record: TransformRecord): DriftedTools {
  const { operator, seed, probability, tools, log } = record.changes;
  if (typeof operator !== 'string' || typeof seed !== 'number' || typeof probability !== 'number' || !Array.isArray(tools) || !Array.isArray(log)) {
    throw new ConfigError('input.invalid', 'transform drift: origin changes lack operator/seed/probability/tools/log', { fix: 'regenerate the tasks with --transform drift' });
  }
  return { operator: parseDriftOperatorId(operator), seed, probability, tools: tools as DriftedTools['tools'], log: log as DriftedTools['log'] };
}

/** A record of webapi drift (an OpenAPI document drifted, judged by the suite's scorer) rather than of tools. */
export function isOpenApiDrift(record: TransformRecord): boolean {
  return record.changes.target === 'openapi';
}

/** The mapper of a record, built once per record object (an episode wraps and adapts with the same record). */
const mappers = new WeakMap<TransformRecord, ToolCallMapper>();
export function driftMapperOf(record: TransformRecord): ToolCallMapper {
  let mapper = mappers.get(record);
  if (!mapper) {
    mapper = createToolCallMapper(driftedToolsOf(record));
    mappers.set(record, mapper);
  }
  return mapper;
}

/** Serves one call as the drifted API would; a call whose arguments did not parse is not a schema question. */
export function serveDriftedCall(mapper: ToolCallMapper, call: Pick<ToolCall, 'name' | 'arguments'>): ServedCall | undefined {
  return call.arguments === undefined ? undefined : mapper.serve({ name: call.name, arguments: call.arguments });
}

/** A call under another name/arguments; the text is kept byte-for-byte when the arguments did not change. */
function withCall(call: ToolCall, name: string, arguments_: JsonObject): ToolCall {
  const same = call.arguments !== undefined && canonicalJson(call.arguments) === canonicalJson(arguments_);
  return { ...call, name, arguments: arguments_, argumentsText: same ? call.argumentsText : JSON.stringify(arguments_) };
}

/**
 * A built-in model's turn with its calls mapped: native tool calls, and in react mode the Action line of the text
 * (the thought kept, the input rewritten only when the call changed).
 */
function mapAssistant(message: AssistantMessage, map: (call: ToolCall) => ToolCall): AssistantMessage {
  return { ...message, content: mapReactAction(message.content, map), toolCalls: message.toolCalls.map(map) };
}

function mapReactAction(text: string, map: (call: ToolCall) => ToolCall): string {
  const step = parseReactStep(text);
  if (step?.type !== 'action') return text;
  const call = createToolCall('react', step.action, step.actionInputText);
  const mapped = map(call);
  if (mapped === call || (mapped.name === call.name && mapped.argumentsText === call.argumentsText)) return text;
  return formatReactStep({ thought: step.thought, action: mapped.name, actionInput: mapped.argumentsText });
}

export const schemaDriftTransform: TaskTransform = {
  id: 'drift',
  // 2: the Finish tool is left as it is.
  version: '2',
  description: 'schema drift (DynamicToolBench): the model sees the old tools, the environment enforces drifted ones and answers old calls like a strict server',
  modes: (task) => (task.suite.id === webapiSuiteId ? ['code'] : ['calls', 'react']),
  knobs: [
    { type: 'enum', name: 'op', description: 'the drift operator, or all of them in order', default: 'all', values: driftOperatorIds },
    { type: 'number', name: 'probability', description: 'probability of endpoint evolution, nesting and each required/optional swap', default: 0.99, min: 0, max: 1 },
  ],
  once: true,
  apply(task: Task, rng: Rng, knobs: JsonObject, context: TransformContext) {
    const operator = parseDriftOperatorId(String(knobs.op));
    if (task.suite.id === webapiSuiteId) return driftWebapiTask(task, { operator, probability: Number(knobs.probability), knobs, runSeed: context.seed });
    const seed = rng.int(0, 2 ** 30 - 1);
    const drifted = driftTools(task.tools, operator, seed, { probability: Number(knobs.probability), untouched: [reactFinishAction] });
    // task.tools stays the old schema: that is what the model was documented.
    return { task, changes: { operator, seed, probability: drifted.probability, tools: drifted.tools, log: drifted.log } as unknown as JsonObject };
  },
  wrapEnvironment(inner: Environment, record: TransformRecord): Environment {
    if (isOpenApiDrift(record)) return inner;
    const mapper = driftMapperOf(record);
    const tools = driftedToolsOf(record).tools;
    return {
      listTools: () => structuredClone(tools),
      async callTool(call, context) {
        const served = serveDriftedCall(mapper, call);
        if (served === undefined) return inner.callTool(call, context);
        if (!served.ok) return { ok: false, error: { code: served.rejection.code, message: served.rejection.message } };
        return inner.callTool(withCall(call, served.call.name, served.call.arguments), context);
      },
      ...(inner.bindings ? { bindings: inner.bindings.bind(inner) } : {}),
      snapshotState: () => inner.snapshotState(),
      dispose: () => inner.dispose(),
    };
  },
  adaptModel(inner: LanguageModel, record: TransformRecord): LanguageModel {
    // webapi's oracle renders `expected.config`, already the new API's request.
    if (isOpenApiDrift(record)) return inner;
    const mapper = driftMapperOf(record);
    // The built-in model reads its history in the old schema and its calls go out in the new one.
    const toOld = (call: ToolCall): ToolCall => {
      const old = call.arguments === undefined ? undefined : mapper.toOld({ name: call.name, arguments: call.arguments });
      return old ? withCall(call, old.name, old.arguments) : call;
    };
    const toNew = (call: ToolCall): ToolCall => {
      const mapped = call.arguments === undefined ? undefined : mapper.toNew({ name: call.name, arguments: call.arguments });
      return mapped ? withCall(call, mapped.name, mapped.arguments) : call;
    };
    const newToOldName = new Map(driftedToolsOf(record).log.map((entry) => [entry.to, entry.from]));
    return {
      specificationVersion: inner.specificationVersion,
      provider: inner.provider,
      modelId: inner.modelId,
      async generate(request) {
        const messages = request.messages.map((message): Message => {
          if (message.role === 'assistant') return mapAssistant(message, toOld);
          if (message.role === 'tool') return { ...message, toolName: newToOldName.get(message.toolName) ?? message.toolName };
          return message;
        });
        const result = await inner.generate({ ...request, messages });
        return { ...result, message: mapAssistant(result.message, toNew) };
      },
    };
  },
};

