/**
 * Model references (`provider/model-id`) to ModelSources. Adding a provider is one folder and one
 * line in `providers`. Everything a reference needs (key, base URL, replay file) is checked here, so
 * a bad reference fails before any episode runs. `builtin/<name>` is resolved by the runner through
 * the suite (`suite.builtinModels`), never here.
 */
import { ConfigError } from '../core/errors.ts';
import { createAnthropicLanguageModel } from './anthropic/anthropic-language-model.ts';
import { createGoogleLanguageModel } from './google/google-language-model.ts';
import { createOpenAICompatibleLanguageModel } from './openai-compatible/openai-compatible-language-model.ts';
import { createOpenAILanguageModel } from './openai/openai-language-model.ts';
import { createReplayModelSource } from './replay/replay-model-source.ts';
import type { LanguageModel, ModelReference, ModelSource } from './spec.ts';

export type ModelSourceOptions = {
  /** Overrides the provider's endpoint; required for openai-compatible. */
  baseUrl?: string;
  /** Where API keys are read from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Each request's timeout, given to the vendor SDK (default 120 s). */
  requestTimeoutMs?: number;
  /**
   * How the user gives this model's endpoint, for the errors that ask for it (default `--base-url <url>`): a suite's
   * helper model has its own (`--set simulator-base-url=<url>`), and pointing the user at --base-url would change the
   * tested model's.
   */
  baseUrlFlag?: BaseUrlFlag;
};

/** What gives the endpoint (`--base-url`), and how it is written with an address (`--base-url http://...`). */
export type BaseUrlFlag = { name: string; example(url: string): string };

/** The flag that takes `name <url>` on the command line. */
export function commandLineBaseUrlFlag(name: string): BaseUrlFlag {
  return { name, example: (url) => `${name} ${url}` };
}

const defaultBaseUrlFlag = commandLineBaseUrlFlag('--base-url');

/** Well under every suite's episode time limit, so a hanging provider fails as a timeout first. */
export const defaultRequestTimeoutMs = 120_000;

type ProviderContext = { reference: ModelReference; baseUrl: string | undefined; env: Record<string, string | undefined>; timeoutMs: number; baseUrlFlag: BaseUrlFlag };

/**
 * The key for an openai-compatible server has its own variable: OPENAI_API_KEY was given for OpenAI and must
 * never be sent to whatever host --base-url names (often a local server, or another company's).
 */
export const openAICompatibleKeyVariable = 'OPENAI_COMPATIBLE_API_KEY';

const providers: Record<string, (context: ProviderContext) => ModelSource> = {
  // OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID are read as the openai SDK reads them.
  openai: (context) => sharedModel(context, createOpenAILanguageModel({
    provider: 'openai', modelId: context.reference.modelId, apiKey: requireApiKey(context, ['OPENAI_API_KEY']).value, apiKeyVariable: 'OPENAI_API_KEY',
    baseUrl: context.baseUrl ?? baseUrlFromEnvironment(context.env, 'OPENAI_BASE_URL'), organization: nonEmpty(context.env.OPENAI_ORG_ID), project: nonEmpty(context.env.OPENAI_PROJECT_ID),
    maxTokensField: 'max_completion_tokens', supportsCompletion: false, timeoutMs: context.timeoutMs,
  })),
  'openai-compatible': (context) => sharedModel(context, createOpenAICompatibleLanguageModel({ modelId: context.reference.modelId, baseUrl: requireBaseUrl(context), apiKey: nonEmpty(context.env[openAICompatibleKeyVariable]), timeoutMs: context.timeoutMs })),
  anthropic: (context) => sharedModel(context, createAnthropicLanguageModel({ modelId: context.reference.modelId, apiKey: requireApiKey(context, ['ANTHROPIC_API_KEY']).value, baseUrl: context.baseUrl, timeoutMs: context.timeoutMs })),
  google: (context) => sharedModel(context, createGoogleLanguageModel({ modelId: context.reference.modelId, apiKey: requireApiKey(context, ['GEMINI_API_KEY', 'GOOGLE_API_KEY']), baseUrl: context.baseUrl, timeoutMs: context.timeoutMs })),
  replay: (context) => createReplayModelSource(context.reference.modelId, context.reference.ref),
};

/** Valid prefixes, for error messages and `--help` (builtin/ is listed though the runner handles it). */
export const modelProviderPrefixes: readonly string[] = [...Object.keys(providers), 'builtin'].map((provider) => `${provider}/`);

/** Splits `provider/model-id` at the first slash (model ids and replay paths may contain more). */
export function parseModelReference(ref: string): ModelReference {
  const slash = ref.indexOf('/');
  const provider = slash === -1 ? '' : ref.slice(0, slash);
  const modelId = slash === -1 ? '' : ref.slice(slash + 1);
  if (provider === '' || modelId === '') {
    throw new ConfigError('config.unknown-model', `model reference '${ref}' is not of the form <provider>/<model-id>`, {
      fix: `use one of ${modelProviderPrefixes.join(', ')} followed by a model id, e.g. openai/gpt-4.1`,
    });
  }
  return { provider, modelId, ref };
}

export function createModelSource(ref: string, options: ModelSourceOptions = {}): ModelSource {
  const reference = parseModelReference(ref);
  if (reference.provider === 'builtin') {
    throw new ConfigError('config.unknown-model', `'${ref}' is a built-in model: it is resolved through the suite, not the model registry`, {
      fix: 'pass builtin/<name> to the runner (toolforge run --model builtin/oracle); createModelSource only builds network and replay models',
    });
  }
  const create = Object.hasOwn(providers, reference.provider) ? providers[reference.provider] : undefined;
  // mcp/<name> is how runs of external agents are named (runs, report): such an agent is run, not called.
  if (create === undefined && reference.provider === 'mcp') {
    throw new ConfigError('config.unknown-model', `'${ref}' names an external agent driven over MCP, which ToolForge cannot call as a model`, {
      fix: "evaluate the agent with --agent-command '<cmd>' (started per episode) or 'toolforge serve' (its MCP client connects)",
    });
  }
  if (create === undefined) {
    throw new ConfigError('config.unknown-model', `unknown model provider '${reference.provider}' in '${ref}'`, {
      fix: `use one of ${modelProviderPrefixes.join(', ')}`,
    });
  }
  const timeoutMs = options.requestTimeoutMs ?? defaultRequestTimeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new ConfigError('config.invalid', `the request timeout must be a positive number of milliseconds, got ${timeoutMs}`, {
      fix: 'pass --request-timeout <ms> with ms >= 1, e.g. --request-timeout 120000',
    });
  }
  return create({ reference, baseUrl: nonEmpty(options.baseUrl), env: options.env ?? process.env, timeoutMs, baseUrlFlag: options.baseUrlFlag ?? defaultBaseUrlFlag });
}

/** Network models are stateless per request: one instance serves every episode. */
function sharedModel(context: ProviderContext, model: LanguageModel): ModelSource {
  return { ref: context.reference.ref, forEpisode: () => model };
}

function requireApiKey(context: ProviderContext, variables: readonly string[]): { variable: string; value: string } {
  for (const variable of variables) {
    const value = nonEmpty(context.env[variable]);
    if (value !== undefined) return { variable, value };
  }
  throw new ConfigError('config.missing-api-key', `${context.reference.ref} needs an API key in ${variables.join(' or ')}, which is not set`, {
    fix: `export ${variables[0]}=<your key>${context.reference.provider === 'openai' ? ` (or use openai-compatible/<model> with ${context.baseUrlFlag.example('<url>')} for a local server that needs no key)` : ''}`,
  });
}

function requireBaseUrl(context: ProviderContext): string {
  if (context.baseUrl === undefined) throw missingBaseUrlError(context.reference.ref, context.baseUrlFlag);
  return context.baseUrl;
}

/** An openai-compatible model given no server address: what to pass, as the user passes it (`flag`). */
export function missingBaseUrlError(ref: string, flag: BaseUrlFlag = defaultBaseUrlFlag, code: 'config.invalid' | 'config.invalid-knob' = 'config.invalid', context = ''): ConfigError {
  return new ConfigError(code, `${context}${ref} needs ${flag.name}: openai-compatible has no default server`, {
    fix: `pass the server's OpenAI-style endpoint, e.g. ${flag.example('http://127.0.0.1:8000/v1')} (vLLM) or ${flag.example('http://127.0.0.1:11434/v1')} (Ollama)`,
  });
}

/** The value without surrounding whitespace (a key copied from a CRLF .env file ends in \r), or undefined when blank. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** OPENAI_BASE_URL as the --base-url flag is checked: an http(s) URL, else a ConfigError naming the variable. */
function baseUrlFromEnvironment(env: Record<string, string | undefined>, variable: string): string | undefined {
  const value = nonEmpty(env[variable]);
  if (value === undefined) return undefined;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new ConfigError('config.invalid', `${variable} is '${value}', which is not an http(s) URL`, {
      fix: `set ${variable} to the API's base URL with its scheme, e.g. https://api.openai.com/v1, or unset it`,
    });
  }
  return value;
}
