/** Anthropic Messages API behind LanguageModel. */
import type Anthropic from '@anthropic-ai/sdk';
import type { z } from 'zod';
import type { AssistantMessage } from '../../core/message.ts';
import type { ToolCall } from '../../core/tool.ts';
import { createToolCall } from '../../core/tool.ts';
import type { ProviderErrorContext } from '../provider-error-mapping.ts';
import { describeInvalidBody, displayedBaseUrl, invalidResponseError, summarizeIssues, toProviderError } from '../provider-error-mapping.ts';
import { nodeHttpFetch } from '../node-http-fetch.ts';
import { completionIgnoredWarning, unsupportedSettingWarning } from '../provider-warning.ts';
import type { GenerateRequest, GenerateResult, LanguageModel, ProviderWarning } from '../spec.ts';
import { convertToAnthropicMessages, prepareAnthropicTools } from './convert-to-anthropic-messages.ts';
import {
  anthropicResponseSchema, anthropicTextBlockSchema, anthropicThinkingBlockSchema, anthropicToolUseBlockSchema, mapAnthropicFinishReason,
} from './anthropic-response.ts';

/** The API requires max_tokens; this is used when the run sets no maxOutputTokens. */
export const defaultAnthropicMaxTokens = 4096;

export function createAnthropicLanguageModel(options: { modelId: string; apiKey: string; baseUrl: string | undefined; timeoutMs: number }): LanguageModel {
  const context: ProviderErrorContext = { provider: 'anthropic', modelId: options.modelId, apiKeyVariable: 'ANTHROPIC_API_KEY', baseUrl: displayedBaseUrl(options.baseUrl) };
  let client: Promise<Anthropic> | undefined;
  const getClient = (): Promise<Anthropic> => (client ??= import('@anthropic-ai/sdk').then(({ default: AnthropicClient }) => new AnthropicClient({
    apiKey: options.apiKey, baseURL: options.baseUrl, maxRetries: 0, timeout: options.timeoutMs, fetch: nodeHttpFetch,
  })));

  return {
    specificationVersion: 'v1',
    provider: 'anthropic',
    modelId: options.modelId,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const anthropic = await getClient();
      const { settings } = request;
      const { system, messages } = convertToAnthropicMessages(request.messages);
      const warnings: ProviderWarning[] = [...completionIgnoredWarning('anthropic', request)];
      // The Messages API version this SDK speaks has no sampling parameters.
      if (settings.temperature !== undefined) warnings.push(unsupportedSettingWarning('anthropic', 'temperature'));
      if (settings.topP !== undefined) warnings.push(unsupportedSettingWarning('anthropic', 'topP'));
      if (settings.seed !== undefined) warnings.push(unsupportedSettingWarning('anthropic', 'seed'));
      if (settings.strictTools) warnings.push(unsupportedSettingWarning('anthropic', 'strictTools', 'tools are sent without strict decoding'));
      const body: Anthropic.MessageCreateParamsNonStreaming = {
        model: options.modelId,
        max_tokens: settings.maxOutputTokens ?? defaultAnthropicMaxTokens,
        messages,
        ...(system !== undefined ? { system } : {}),
        ...prepareAnthropicTools(request.tools, request.toolChoice),
        ...(settings.stop !== undefined && settings.stop.length > 0 ? { stop_sequences: settings.stop } : {}),
      };
      let response: unknown;
      try {
        response = (await anthropic.messages.create(body, { signal: request.signal }).withResponse()).data;
      } catch (error) {
        throw toProviderError(error, context, request.signal);
      }
      const parsed = anthropicResponseSchema.safeParse(response);
      if (!parsed.success) throw invalidResponseError(context, describeInvalidBody(response, parsed.error.issues));
      const texts: string[] = [];
      const thoughts: string[] = [];
      const toolCalls: ToolCall[] = [];
      for (const [index, block] of parsed.data.content.entries()) {
        if (block.type === 'text') texts.push(parseBlock(anthropicTextBlockSchema, block, index, context).text);
        else if (block.type === 'thinking') thoughts.push(parseBlock(anthropicThinkingBlockSchema, block, index, context).thinking);
        else if (block.type === 'tool_use') {
          const call = parseBlock(anthropicToolUseBlockSchema, block, index, context);
          toolCalls.push(createToolCall(call.id, call.name, typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {})));
        }
      }
      const message: AssistantMessage = {
        role: 'assistant', content: texts.join(''), toolCalls, ...(thoughts.length > 0 ? { reasoning: thoughts.join('\n') } : {}),
      };
      return {
        message,
        finishReason: mapAnthropicFinishReason(parsed.data.stop_reason),
        usage: { inputTokens: parsed.data.usage?.input_tokens ?? 0, outputTokens: parsed.data.usage?.output_tokens ?? 0 },
        warnings,
        raw: { request: body, response },
      };
    },
  };
}

function parseBlock<T>(schema: z.ZodType<T>, block: unknown, index: number, context: ProviderErrorContext): T {
  const parsed = schema.safeParse(block);
  if (!parsed.success) throw invalidResponseError(context, `content.${index}: ${summarizeIssues(parsed.error.issues)}`);
  return parsed.data;
}
