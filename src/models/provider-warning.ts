import type { GenerateRequest, ProviderWarning } from './spec.ts';

export function unsupportedSettingWarning(provider: string, setting: string, detail = 'it is ignored'): ProviderWarning {
  return { type: 'unsupported-setting', message: `${provider} does not support the setting '${setting}': ${detail}` };
}

/** Chat-only providers answer a completion request with a chat turn, and say so. */
export function completionIgnoredWarning(provider: string, request: GenerateRequest): ProviderWarning[] {
  return request.completion
    ? [{ type: 'other', message: `${provider} has no text-completion endpoint: answered as a chat turn (use openai-compatible/<model> --base-url for base models)` }]
    : [];
}
