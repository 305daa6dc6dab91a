/**
 * OpenAI Chat Completions behind LanguageModel. Also the engine of openai-compatible/ (vLLM, Ollama,
 * llama.cpp server, LM Studio, OpenRouter), which adds the legacy completions endpoint for base models.
 */
import type OpenAI from 'openai';
import type { AssistantMessage } from '../../core/message.ts';
import { createToolCall } from '../../core/tool.ts';
import type { Usage } from '../../core/usage.ts';
import type { ProviderErrorContext } from '../provider-error-mapping.ts';
import { describeInvalidBody, displayedBaseUrl, invalidResponseError, toProviderError } from '../provider-error-mapping.ts';
import { completionIgnoredWarning } from '../provider-warning.ts';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../spec.ts';
import { convertToOpenAIMessages, prepareOpenAITools } from './convert-to-openai-messages.ts';
import type { OpenAIConnection } from './openai-http-client.ts';
import { postOpenAI } from './openai-http-client.ts';
import { mapOpenAIFinishReason, openAIChatResponseSchema, openAICompletionResponseSchema } from './openai-response.ts';

export type OpenAILanguageModelConfig = {
  provider: 'openai' | 'openai-compatible';
  modelId: string;
  /** undefined: send no Authorization header (local servers need none). */
  apiKey: string | undefined;
  apiKeyVariable: string | undefined;
  /** undefined: OpenAI's own (https://api.openai.com/v1). */
  baseUrl: string | undefined;
  /** Sent as OpenAI-Organization and OpenAI-Project (OPENAI_ORG_ID, OPENAI_PROJECT_ID), as the openai SDK sends them. */
  organization?: string;
  project?: string;
  /** OpenAI renamed max_tokens; most compatible servers only know the old name. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Whether `completion: true` goes to /v1/completions (else it is answered as chat with a warning). */
  supportsCompletion: boolean;
  /** Per request. */
  timeoutMs: number;
};

export const openAIDefaultBaseUrl = 'https://api.openai.com/v1';

export function createOpenAILanguageModel(config: OpenAILanguageModelConfig): LanguageModel {
  const context: ProviderErrorContext = {
    provider: config.provider, modelId: config.modelId, apiKeyVariable: config.apiKeyVariable, baseUrl: displayedBaseUrl(config.baseUrl),
  };
  const connection: OpenAIConnection = {
    baseUrl: config.baseUrl ?? openAIDefaultBaseUrl,
    headers: {
      ...(config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` }),
      ...(config.organization === undefined ? {} : { 'openai-organization': config.organization }),
      ...(config.project === undefined ? {} : { 'openai-project': config.project }),
    },
    timeoutMs: config.timeoutMs,
  };
  return {
    specificationVersion: 'v1',
    provider: config.provider,
    modelId: config.modelId,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      return request.completion && config.supportsCompletion
        ? complete(connection, request, config, context)
        : chat(connection, request, config, context);
    },
  };
}

async function chat(connection: OpenAIConnection, request: GenerateRequest, config: OpenAILanguageModelConfig, context: ProviderErrorContext): Promise<GenerateResult> {
  const { settings } = request;
  const tools = prepareOpenAITools(request.tools, request.toolChoice, settings.strictTools === true);
  const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
    model: config.modelId,
    messages: convertToOpenAIMessages(request.messages),
    ...tools.fields,
    ...samplingParameters(request),
  };
  if (settings.maxOutputTokens !== undefined) body[config.maxTokensField] = settings.maxOutputTokens;
  let response: unknown;
  try {
    response = await postOpenAI(connection, '/chat/completions', body, request.signal);
  } catch (error) {
    throw toProviderError(error, context, request.signal);
  }
  const parsed = openAIChatResponseSchema.safeParse(response);
  if (!parsed.success) throw invalidResponseError(context, describeInvalidBody(response, parsed.error.issues));
  const [choice] = parsed.data.choices;
  // Ids are only missing from some local servers; a per-turn index keeps them unique and deterministic.
  const turn = request.messages.filter((message) => message.role === 'assistant').length;
  const toolCalls = (choice.message.tool_calls ?? []).map((call, index) => {
    const name = call.function?.name ?? call.custom?.name;
    const argumentsValue = call.function?.arguments ?? call.custom?.input;
    return createToolCall(
      call.id === null || call.id === undefined ? `call_${turn}_${index}` : String(call.id),
      // No usable name: the environment answers it as an unknown tool.
      typeof name === 'string' ? name : '',
      typeof argumentsValue === 'string' ? argumentsValue : JSON.stringify(argumentsValue ?? {}),
    );
  });
  const refusal = choice.message.refusal ?? undefined;
  const reasoning = choice.message.reasoning_content ?? choice.message.reasoning ?? undefined;
  const message: AssistantMessage = { role: 'assistant', content: choice.message.content ?? '', toolCalls, ...(reasoning ? { reasoning } : {}) };
  return {
    message,
    // A refusal is the content filter's answer, whatever finish reason came with it.
    finishReason: refusal !== undefined && toolCalls.length === 0 ? 'content-filter'
      : toolCalls.length > 0 && choice.finish_reason === 'stop' ? 'tool-calls' : mapOpenAIFinishReason(choice.finish_reason),
    usage: usageOf(parsed.data.usage),
    warnings: [
      ...(refusal !== undefined ? [{ type: 'other' as const, message: `the model refused: ${refusal}` }] : []),
      ...completionIgnoredWarning(config.provider, request),
      ...(tools.notStrict.length > 0
        ? [{ type: 'other' as const, message: `strictTools: ${tools.notStrict.length} tool(s) sent without strict, their schemas cannot be strict: ${tools.notStrict.join('; ')}` }]
        : []),
    ],
    raw: { request: body, response },
  };
}

/** A plain continuation of the last user message through /v1/completions, for base models. */
async function complete(connection: OpenAIConnection, request: GenerateRequest, config: OpenAILanguageModelConfig, context: ProviderErrorContext): Promise<GenerateResult> {
  const { settings } = request;
  const lastUser = [...request.messages].reverse().find((message) => message.role === 'user');
  const body: OpenAI.CompletionCreateParamsNonStreaming = {
    model: config.modelId,
    prompt: lastUser?.content ?? '',
    ...samplingParameters(request),
    ...(settings.maxOutputTokens !== undefined ? { max_tokens: settings.maxOutputTokens } : {}),
  };
  let response: unknown;
  try {
    response = await postOpenAI(connection, '/completions', body, request.signal);
  } catch (error) {
    throw toProviderError(error, context, request.signal);
  }
  const parsed = openAICompletionResponseSchema.safeParse(response);
  if (!parsed.success) throw invalidResponseError(context, describeInvalidBody(response, parsed.error.issues));
  const [choice] = parsed.data.choices;
  return {
    message: { role: 'assistant', content: choice.text, toolCalls: [] },
    finishReason: mapOpenAIFinishReason(choice.finish_reason),
    usage: usageOf(parsed.data.usage),
    warnings: request.tools.length > 0
      ? [{ type: 'other', message: `${config.provider} completion requests carry no tools: ${request.tools.length} tool(s) were not sent` }]
      : [],
    raw: { request: body, response },
  };
}

function samplingParameters(request: GenerateRequest): { temperature?: number; top_p?: number; seed?: number; stop?: string[] } {
  const { temperature, topP, seed, stop } = request.settings;
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { top_p: topP } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(stop !== undefined && stop.length > 0 ? { stop } : {}),
  };
}

function usageOf(usage: { prompt_tokens?: number | null; completion_tokens?: number | null } | null | undefined): Usage {
  return { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
}
