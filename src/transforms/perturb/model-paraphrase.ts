/**
 * Paraphrase by a configured model (mode `model_paraphrase`), with the reference's prompt. The
 * answer is cached by a hash of the model and the exact request, so a rerun (or a resumed run)
 * shows the model under test byte-identical queries without asking the paraphraser again.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, ProviderError } from '../../core/errors.ts';
import { canonicalJson } from '../../core/json.ts';
import { fileProblem } from '../../core/file-problem.ts';
import type { Message } from '../../core/message.ts';
import type { GenerationSettings, LanguageModel } from '../../models/spec.ts';

export const paraphraseSystemPrompt = 'You are a skilled language agent versed in paraphrasing text.';

export function paraphraseUserPrompt(query: string): string {
  return 'Paraphrase the following user query while keeping the meaning identical. '
    + `Do NOT change named entities or specific values.\n\nQuery: ${query}\n\nParaphrase:`;
}

/** Where paraphrases are kept between runs. */
export interface ParaphraseCache {
  get(key: string): string | undefined;
  set(key: string, paraphrase: string): void;
}

export function createMemoryParaphraseCache(): ParaphraseCache {
  const entries = new Map<string, string>();
  return { get: (key) => entries.get(key), set: (key, value) => void entries.set(key, value) };
}

/**
 * A file of paraphrases, one JSON object `{"<hash>": "<paraphrase>"}` per line, each new entry appended: a paraphrase
 * costs one small write however many came before (rewriting the whole file per entry took 5.5 s for 4,000 and grew
 * with the square). A single JSON object of every entry, as earlier versions wrote it, is read too, and rewritten as
 * lines before the first append. A line cut short by a kill is the last one: it is dropped, and its entry asked again.
 */
export function createFileParaphraseCache(path: string): ParaphraseCache {
  const { entries, completeBytes } = readParaphraseFile(path);
  let cutLine = completeBytes !== undefined;
  return {
    get: (key) => entries.get(key),
    set(key, value) {
      if (entries.get(key) === value) return;
      entries.set(key, value);
      mkdirSync(dirname(path), { recursive: true });
      // A line cut short is dropped before the first append, which would otherwise continue it.
      if (cutLine && completeBytes !== undefined) truncateSync(path, completeBytes);
      cutLine = false;
      appendFileSync(path, `${JSON.stringify({ [key]: value })}\n`);
    },
  };
}

/** The entries, and when the last line was cut short, the length in bytes of the lines before it. */
function readParaphraseFile(path: string): { entries: Map<string, string>; completeBytes?: number } {
  const entries = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries };
    throw damagedParaphraseFile(path, fileProblem(path, error));
  }
  const whole = parseWhole(text);
  if (whole !== undefined && text.trimEnd().includes('\n')) {
    // Written whole by an earlier version: rewritten as lines once, so entries can be appended to it.
    for (const [key, value] of Object.entries(whole)) entries.set(key, value);
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, [...entries].map(([key, value]) => `${JSON.stringify({ [key]: value })}\n`).join(''));
    renameSync(temporary, path);
    return { entries };
  }
  const lines = text.split('\n');
  let cut = false;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const value = parseWhole(line);
    // Only the last line can be cut short by a kill mid-append (it has no newline yet): that entry is asked again.
    if (value === undefined && index === lines.length - 1) {
      cut = true;
      return;
    }
    if (value === undefined) throw damagedParaphraseFile(path, `line ${index + 1} is not a JSON object of paraphrases`);
    for (const [key, paraphrase] of Object.entries(value)) if (!entries.has(key)) entries.set(key, paraphrase);
  });
  return cut ? { entries, completeBytes: Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1)) } : { entries };
}

/** The text as one JSON object of strings, or undefined. */
function parseWhole(text: string): Record<string, string> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return Object.values(value).every((entry) => typeof entry === 'string') ? value as Record<string, string> : undefined;
}

function damagedParaphraseFile(path: string, reason: string): ConfigError {
  return new ConfigError('input.invalid', `the paraphrase cache '${path}' cannot be read: ${reason}`, {
    fix: 'restore it from a backup, or delete it: the paraphrasing model is then asked again (and may phrase some queries differently)',
  });
}

export type ParaphraseOptions = {
  model: LanguageModel;
  cache: ParaphraseCache;
  signal?: AbortSignal;
  /** Reference: temperature 0.1; 0 here, since the cache makes reruns identical anyway. */
  settings?: GenerationSettings;
};

export function paraphraseCacheKey(model: Pick<LanguageModel, 'provider' | 'modelId'>, messages: readonly Message[], settings: GenerationSettings): string {
  return createHash('sha256').update(canonicalJson({ model: `${model.provider}/${model.modelId}`, messages, settings })).digest('hex');
}

export async function paraphraseQuery(query: string, options: ParaphraseOptions): Promise<string> {
  const settings = options.settings ?? { temperature: 0 };
  const messages: Message[] = [{ role: 'system', content: paraphraseSystemPrompt }, { role: 'user', content: paraphraseUserPrompt(query) }];
  const key = paraphraseCacheKey(options.model, messages, settings);
  const cached = options.cache.get(key);
  if (cached !== undefined) return cached;
  const result = await options.model.generate({ messages, tools: [], toolChoice: 'none', settings, signal: options.signal ?? new AbortController().signal });
  const paraphrase = cleanParaphrase(result.message.content);
  if (paraphrase === '') {
    // The paraphraser is infrastructure here, not the model under test: retry rather than score.
    throw new ProviderError('provider.invalid-response', `paraphrase model ${options.model.provider}/${options.model.modelId} returned no text`, {
      isRetryable: true, fix: 'check the paraphrase model, or use another one',
    });
  }
  options.cache.set(key, paraphrase);
  return paraphrase;
}

/** The answer without a repeated "Paraphrase:" label or wrapping quotes. */
export function cleanParaphrase(text: string): string {
  let cleaned = text.trim().replace(/^paraphrase\s*:\s*/i, '').trim();
  if (cleaned.length >= 2 && /^["“']/.test(cleaned) && /["”']$/.test(cleaned)) cleaned = cleaned.slice(1, -1).trim();
  return cleaned;
}
