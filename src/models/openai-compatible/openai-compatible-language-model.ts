/**
 * Any server that speaks the OpenAI API (vLLM, Ollama, llama.cpp server, LM Studio, OpenRouter...).
 * The base URL is required; the key is optional because local servers need none. Base models are
 * served through the legacy completions endpoint when a request asks for `completion`.
 */
import { createOpenAILanguageModel } from '../openai/openai-language-model.ts';
import type { LanguageModel } from '../spec.ts';

export function createOpenAICompatibleLanguageModel(options: { modelId: string; baseUrl: string; apiKey: string | undefined; timeoutMs: number }): LanguageModel {
  return createOpenAILanguageModel({
    provider: 'openai-compatible',
    modelId: options.modelId,
    apiKey: options.apiKey,
    apiKeyVariable: options.apiKey === undefined ? undefined : 'OPENAI_COMPATIBLE_API_KEY',
    baseUrl: options.baseUrl,
    maxTokensField: 'max_tokens',
    supportsCompletion: true,
    timeoutMs: options.timeoutMs,
  });
}
