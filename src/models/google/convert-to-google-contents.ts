import type { Content, FunctionCallingConfigMode, Part, Tool, ToolConfig } from '@google/genai';
import type { JsonObject } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { Message } from '../../core/message.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { ToolChoice } from '../spec.ts';

/** Ids we made up because Gemini sent none; never sent back, since Gemini did not issue them. */
export const synthesizedCallIdPrefix = 'gemini_call_';

/**
 * Our conversation in Gemini shape: system text becomes `systemInstruction`; the assistant is `model`;
 * tool results are `functionResponse` parts in a user turn, and consecutive same-role turns merge.
 */
export function convertToGoogleContents(messages: readonly Message[]): { systemInstruction: string | undefined; contents: Content[] } {
  const systemTexts: string[] = [];
  const contents: (Content & { parts: Part[] })[] = [];
  const push = (role: 'user' | 'model', parts: Part[]): void => {
    if (parts.length === 0) return;
    const previous = contents[contents.length - 1];
    if (previous?.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        systemTexts.push(message.content);
        break;
      case 'user':
        push('user', [{ text: message.content }]);
        break;
      case 'assistant':
        push('model', [
          ...(message.content === '' ? [] : [{ text: message.content }]),
          // args must be an object: a call whose text did not parse goes back as {}.
          ...message.toolCalls.map((call): Part => ({
            functionCall: { ...vendorId(call.id), name: call.name, args: call.arguments ?? {} },
            ...thoughtSignature(call.providerMetadata),
          })),
        ]);
        break;
      case 'tool':
        push('user', [{
          functionResponse: {
            ...vendorId(message.toolCallId),
            name: message.toolName,
            // Gemini's documented keys: `output` for a result, `error` for a failure.
            response: message.result.ok ? { output: message.result.output } : { error: message.result.error },
          },
        }]);
        break;
    }
  }
  return { systemInstruction: systemTexts.length > 0 ? systemTexts.join('\n\n') : undefined, contents };
}

/** The signature Gemini attached to this call, sent back so thinking models accept the history. */
function thoughtSignature(metadata: JsonObject | undefined): { thoughtSignature?: string } {
  const google = metadata?.google;
  const signature = isJsonObject(google) ? google.thoughtSignature : undefined;
  return typeof signature === 'string' ? { thoughtSignature: signature } : {};
}

function vendorId(id: string): { id?: string } {
  return id.startsWith(synthesizedCallIdPrefix) ? {} : { id };
}

export function prepareGoogleTools(tools: readonly ToolSpec[], toolChoice: ToolChoice): { tools?: Tool[]; toolConfig?: ToolConfig } {
  if (tools.length === 0) return {};
  const mode = ({ auto: 'AUTO', required: 'ANY', none: 'NONE' } as const)[toolChoice];
  return {
    tools: [{ functionDeclarations: tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: tool.inputSchema })) }],
    toolConfig: { functionCallingConfig: { mode: mode as FunctionCallingConfigMode } },
  };
}
