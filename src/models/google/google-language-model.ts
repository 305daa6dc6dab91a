/** Gemini (generativelanguage API) behind LanguageModel. */
import type { GenerateContentConfig, GoogleGenAI } from '@google/genai';
import type { AssistantMessage } from '../../core/message.ts';
import type { ToolCall } from '../../core/tool.ts';
import { createToolCall } from '../../core/tool.ts';
import type { ProviderErrorContext } from '../provider-error-mapping.ts';
import { describeInvalidBody, displayedBaseUrl, invalidResponseError, retryAfterHeader, toProviderError } from '../provider-error-mapping.ts';
import { completionIgnoredWarning, unsupportedSettingWarning } from '../provider-warning.ts';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../spec.ts';
import { convertToGoogleContents, prepareGoogleTools, synthesizedCallIdPrefix } from './convert-to-google-contents.ts';
import { googleResponseSchema, mapGoogleFinishReason } from './google-response.ts';

/** `apiKey.variable` is where the key came from (GEMINI_API_KEY or GOOGLE_API_KEY), named in 401/403 messages. */
export function createGoogleLanguageModel(options: { modelId: string; apiKey: { variable: string; value: string }; baseUrl: string | undefined; timeoutMs: number }): LanguageModel {
  const context: ProviderErrorContext = { provider: 'google', modelId: options.modelId, apiKeyVariable: options.apiKey.variable, baseUrl: displayedBaseUrl(options.baseUrl) };
  let client: Promise<GoogleGenAI> | undefined;
  // No retryOptions: the SDK then makes exactly one attempt (only the runner retries).
  const getClient = (): Promise<GoogleGenAI> => (client ??= import('@google/genai').then(({ GoogleGenAI: GoogleClient }) => new GoogleClient({
    apiKey: options.apiKey.value,
    vertexai: false,
    httpOptions: { timeout: options.timeoutMs, ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}) },
  })));

  return {
    specificationVersion: 'v1',
    provider: 'google',
    modelId: options.modelId,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const google = await getClient();
      const { settings } = request;
      const { systemInstruction, contents } = convertToGoogleContents(request.messages);
      // The SDK hides headers and rewrites bodies; this per-request fetch keeps Retry-After and the wire JSON.
      const exchange: { retryAfter: string | null; responseText: string | undefined } = { retryAfter: null, responseText: undefined };
      const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        const response = await fetch(input, init);
        exchange.retryAfter = retryAfterHeader(response.headers);
        if (response.ok) exchange.responseText = await response.clone().text();
        // Gemini sends no Retry-After: the wait it asks for is the error body's RetryInfo.
        else if (exchange.retryAfter === null) exchange.retryAfter = retryDelayOfGoogleError(await response.clone().text()) ?? null;
        return response;
      };
      const config: GenerateContentConfig = {
        ...(systemInstruction !== undefined ? { systemInstruction } : {}),
        ...prepareGoogleTools(request.tools, request.toolChoice),
        ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
        ...(settings.topP !== undefined ? { topP: settings.topP } : {}),
        ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
        ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
        ...(settings.stop !== undefined && settings.stop.length > 0 ? { stopSequences: settings.stop } : {}),
      };
      const body = { model: options.modelId, contents, config };
      try {
        await google.models.generateContent({ ...body, config: { ...config, abortSignal: request.signal, httpOptions: { fetch: recordingFetch } } });
      } catch (error) {
        throw toProviderError(error, context, request.signal, exchange.retryAfter);
      }
      let response: unknown;
      try {
        response = JSON.parse(exchange.responseText ?? '');
      } catch (error) {
        throw invalidResponseError(context, `the body is not valid JSON (${(error as Error).message})`, error);
      }
      const parsed = googleResponseSchema.safeParse(response);
      if (!parsed.success) throw invalidResponseError(context, describeInvalidBody(response, parsed.error.issues));
      const candidate = parsed.data.candidates?.[0];
      if (candidate === undefined && !parsed.data.promptFeedback?.blockReason) {
        throw invalidResponseError(context, describeInvalidBody(response, [{ path: ['candidates'], message: 'no candidate and no block reason' }]));
      }
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      const texts: string[] = [];
      const thoughts: string[] = [];
      const toolCalls: ToolCall[] = [];
      for (const part of candidate?.content?.parts ?? []) {
        if (part.functionCall) {
          const { id, name, args } = part.functionCall;
          const call = createToolCall(id ?? `${synthesizedCallIdPrefix}${turn}_${toolCalls.length}`, name, typeof args === 'string' ? args : JSON.stringify(args ?? {}));
          toolCalls.push(part.thoughtSignature ? { ...call, providerMetadata: { google: { thoughtSignature: part.thoughtSignature } } } : call);
        } else if (typeof part.text === 'string') {
          (part.thought ? thoughts : texts).push(part.text);
        }
      }
      const message: AssistantMessage = {
        role: 'assistant', content: texts.join(''), toolCalls, ...(thoughts.length > 0 ? { reasoning: thoughts.join('\n') } : {}),
      };
      const mapped = candidate === undefined ? 'content-filter' : mapGoogleFinishReason(candidate.finishReason);
      const usage = parsed.data.usageMetadata;
      return {
        message,
        // Gemini says STOP after function calls; our contract says tool-calls.
        finishReason: mapped === 'stop' && toolCalls.length > 0 ? 'tool-calls' : mapped,
        usage: { inputTokens: usage?.promptTokenCount ?? 0, outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0) },
        warnings: [...completionIgnoredWarning('google', request), ...(request.settings.strictTools ? [unsupportedSettingWarning('google', 'strictTools', 'tools are sent without strict decoding')] : [])],
        raw: { request: body, response },
      };
    },
  };
}

/**
 * The wait a Gemini error body asks for, in seconds as Retry-After writes them: `error.details[]` holds a
 * `google.rpc.RetryInfo` whose `retryDelay` is a protobuf duration ("53s", "45.837906927s").
 */
export function retryDelayOfGoogleError(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  // Some gateways wrap the error object in a one-element list.
  const envelope = Array.isArray(parsed) ? parsed[0] : parsed;
  const details = (envelope as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const { '@type': type, retryDelay } = (detail ?? {}) as { '@type'?: unknown; retryDelay?: unknown };
    if (typeof type !== 'string' || !type.endsWith('google.rpc.RetryInfo') || typeof retryDelay !== 'string') continue;
    const seconds = /^(\d+(?:\.\d+)?)s$/.exec(retryDelay.trim());
    if (seconds) return seconds[1];
  }
  return undefined;
}
