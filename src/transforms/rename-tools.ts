/**
 * rename-tools: every tool gets a new name from a seeded map. The model is shown the new names (in
 * `task.tools` and wherever the prompt quotes a tool name, as JSON tool lists do); the environment
 * accepts only the new names and maps each call back to the suite's environment under its original
 * name, so scoring is unchanged. A call by a retired (original) name is an unknown tool (the suite's
 * environment logs it as `retired:<name>`). Only modes whose calls go through the environment
 * (calls, react) can be renamed; sequence and code answers are scored from text. Built-in
 * models are adapted both ways: they read the original names in their history and their calls go
 * out under the new ones, so the oracle stays at 100%.
 */
import type { Environment } from '../core/environment.ts';
import { ConfigError } from '../core/errors.ts';
import type { JsonObject } from '../core/json.ts';
import type { AssistantMessage, Message, PromptMessage } from '../core/message.ts';
import { reactFinishAction } from '../core/react-format.ts';
import type { Rng } from '../core/rng.ts';
import type { Task, TransformRecord } from '../core/task.ts';
import type { LanguageModel } from '../models/spec.ts';
import type { TaskTransform } from './spec.ts';

const letters = 'abcdefghijklmnopqrstuvwxyz';

/** How a call by a retired name reaches the suite's environment: ':' is in no tool name, so it is unknown there. */
export const retiredPrefix = 'retired:';

/** A fresh name per tool: opaque (`tool_kqzvwb`) or the old one with a suffix (`power_kqzv`). */
function newName(rng: Rng, name: string, style: string, taken: Set<string>): string {
  for (;;) {
    const length = style === 'opaque' ? 6 : 4;
    const suffix = Array.from({ length }, () => rng.pick([...letters])).join('');
    const candidate = style === 'opaque' ? `tool_${suffix}` : `${name}_${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The rename map a task's origin records (original name -> new name). */
export function renameMapOf(record: TransformRecord): Map<string, string> {
  const renamed = record.changes.renamed;
  if (!renamed || typeof renamed !== 'object' || Array.isArray(renamed)) {
    throw new ConfigError('input.invalid', 'transform rename-tools: origin changes.renamed is missing', { fix: 'regenerate the tasks with --transform rename-tools' });
  }
  return new Map(Object.entries(renamed).map(([from, to]) => [from, String(to)]));
}

function quotedNames(text: string, map: ReadonlyMap<string, string>): string {
  let result = text;
  for (const [from, to] of map) result = result.split(`"${from}"`).join(`"${to}"`);
  return result;
}

function renamePrompt(prompt: readonly PromptMessage[], map: ReadonlyMap<string, string>): PromptMessage[] {
  return prompt.map((message) => ({ ...message, content: quotedNames(message.content, map) }));
}

function renameMessages(messages: readonly Message[], map: ReadonlyMap<string, string>): Message[] {
  const rename = (name: string) => map.get(name) ?? name;
  return messages.map((message): Message => {
    switch (message.role) {
      case 'assistant':
        return renameAssistant(message, map);
      case 'tool':
        return { ...message, toolName: rename(message.toolName) };
      default:
        return { ...message, content: quotedNames(message.content, map) };
    }
  });
}

/**
 * A built-in model's answer text names a tool only on a react `Action:` line; anything else in it is data (a voice
 * answer's history lists the tools it used by their real names) and stays as written.
 */
function renameActionLines(text: string, map: ReadonlyMap<string, string>): string {
  return text.replace(/^([^\S\n]*Action[^\S\n]*:[^\S\n]*`?)([^`\n]*?)(`?[^\S\n]*)$/gm, (line, head: string, name: string, tail: string) => {
    // The react protocol's own Finish ends the episode with the answer: it is no tool's call, whatever tools are named.
    const renamed = name.toLowerCase() === reactFinishAction.toLowerCase() ? undefined : map.get(name);
    return renamed === undefined ? line : `${head}${renamed}${tail}`;
  });
}

function renameAssistant(message: AssistantMessage, map: ReadonlyMap<string, string>): AssistantMessage {
  return {
    ...message,
    content: renameActionLines(message.content, map),
    toolCalls: message.toolCalls.map((call) => ({ ...call, name: map.get(call.name) ?? call.name })),
  };
}

export const renameToolsTransform: TaskTransform = {
  id: 'rename-tools',
  version: '1',
  description: 'renames every tool by a seeded map; the environment maps the new names back to the originals',
  modes: ['calls', 'react'],
  knobs: [{ type: 'enum', name: 'style', description: 'opaque names (tool_xxxxxx) or the old name plus a suffix', default: 'opaque', values: ['opaque', 'suffix'] }],
  apply(task: Task, rng: Rng, knobs: JsonObject) {
    const style = String(knobs.style);
    const taken = new Set(task.tools.map((tool) => tool.name));
    const renamed: Record<string, string> = {};
    for (const tool of task.tools) {
      renamed[tool.name] = newName(rng, tool.name, style, taken);
      taken.add(renamed[tool.name]);
    }
    const map = new Map(Object.entries(renamed));
    return {
      task: { ...task, tools: task.tools.map((tool) => ({ ...tool, name: renamed[tool.name] })), prompt: renamePrompt(task.prompt, map) },
      changes: { renamed },
    };
  },
  wrapEnvironment(inner: Environment, record: TransformRecord): Environment {
    const map = renameMapOf(record);
    const back = new Map([...map].map(([from, to]) => [to, from]));
    return {
      listTools: () => inner.listTools().map((tool) => ({ ...tool, name: map.get(tool.name) ?? tool.name })),
      async callTool(call, context) {
        const original = back.get(call.name);
        if (original !== undefined) return inner.callTool({ ...call, name: original }, context);
        if (!map.has(call.name)) {
          // The suite's message would list the tools by their real names: the model is told only what it called.
          const result = await inner.callTool(call, context);
          return result.ok || result.error.code !== 'tool.unknown' ? result : { ok: false, error: { code: result.error.code, message: `no tool named '${call.name}'` } };
        }
        // A retired name: the suite's environment still sees (and logs) the call, under a name no tool can have.
        const result = await inner.callTool({ ...call, name: `${retiredPrefix}${call.name}` }, context);
        return result.ok ? result : { ok: false, error: { code: result.error.code, message: `no tool named '${call.name}'` } };
      },
      ...(inner.bindings ? { bindings: inner.bindings.bind(inner) } : {}),
      snapshotState: () => inner.snapshotState(),
      dispose: () => inner.dispose(),
    };
  },
  adaptModel(inner: LanguageModel, record: TransformRecord): LanguageModel {
    const map = renameMapOf(record);
    const back = new Map([...map].map(([from, to]) => [to, from]));
    return {
      specificationVersion: inner.specificationVersion,
      provider: inner.provider,
      modelId: inner.modelId,
      async generate(request) {
        const result = await inner.generate({
          ...request,
          messages: renameMessages(request.messages, back),
          tools: request.tools.map((tool) => ({ ...tool, name: back.get(tool.name) ?? tool.name })),
        });
        return { ...result, message: renameAssistant(result.message, map) };
      },
    };
  },
};
