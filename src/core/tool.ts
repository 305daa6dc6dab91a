import { z } from 'zod';
import type { JsonObject, JsonValue } from './json.ts';

/** JSON Schema, kept as plain data (validated with ajv where a suite needs it). */
export type JsonSchema = JsonObject;

export type ToolSpec = {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  inputSchema: JsonSchema;
};

/** A call as the model emitted it. `argumentsText` is kept byte-for-byte; malformed arguments are a scored fault. */
export type ToolCall = {
  id: string;
  name: string;
  argumentsText: string;
  /** Parsed arguments; undefined when `argumentsText` is not a JSON object. */
  arguments: JsonObject | undefined;
  parseError?: string;
  /**
   * Opaque vendor data the adapter must get back with this call on the next turn (Gemini's
   * `thoughtSignature`), keyed by provider. Never shown to scorers.
   */
  providerMetadata?: JsonObject;
};

/** The answer to a call, shown to the model. Errors here are the model's to recover from, not crashes. */
export type ToolResult =
  | { ok: true; output: JsonValue }
  | { ok: false; error: { code: string; message: string } };

export const toolSpecSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});

/**
 * The tools with each name once, the first kept. Providers and MCP take one function per name, and published data
 * repeats some (NESTFUL's glaive specs list five tools twice, identically); the prompt text keeps the data's list.
 */
export function distinctToolsByName(tools: ToolSpec[]): ToolSpec[] {
  const names = new Set<string>();
  const distinct = tools.filter((tool) => !names.has(tool.name) && names.add(tool.name) !== undefined);
  return distinct.length === tools.length ? tools : distinct;
}

/** Builds a ToolCall from raw argument text, parsing it and recording (not throwing) a parse failure. */
export function createToolCall(id: string, name: string, argumentsText: string): ToolCall {
  const text = argumentsText.trim() === '' ? '{}' : argumentsText;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return { id, name, argumentsText, arguments: parsed as JsonObject };
    }
    return { id, name, argumentsText, arguments: undefined, parseError: 'arguments are not a JSON object' };
  } catch (error) {
    return { id, name, argumentsText, arguments: undefined, parseError: (error as Error).message };
  }
}
