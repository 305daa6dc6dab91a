import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { readTextFileSync } from '../core/read-text-file.ts';
import { fileProblem } from '../core/file-problem.ts';
import { formatFieldPath } from '../core/field-path.ts';
import { repeatedJsonKey } from '../core/repeated-json-key.ts';

/** USD per million tokens. */
export type ModelPrice = { input: number; output: number };

/** Keys are model references; a key ending in `*` matches every reference starting with the rest. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * List prices (USD per million input / output tokens, standard tier, no caching or batch discount)
 * as published by the providers in 2025. Prices change: pass your own with `report --prices <file>`,
 * which adds to and overrides this table (its prefix* keys cover the built-in prices under them). Built-in and replay
 * models make no paid call.
 */
export const defaultPrices: PriceTable = {
  'builtin/*': { input: 0, output: 0 },
  'replay/*': { input: 0, output: 0 },
  'openai/gpt-4.1': { input: 2, output: 8 },
  'openai/gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'openai/gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'openai/gpt-4o': { input: 2.5, output: 10 },
  'openai/gpt-4o-mini': { input: 0.15, output: 0.6 },
  'openai/o3': { input: 2, output: 8 },
  'openai/o4-mini': { input: 1.1, output: 4.4 },
  'openai/gpt-5': { input: 1.25, output: 10 },
  'openai/gpt-5-mini': { input: 0.25, output: 2 },
  'openai/gpt-5-nano': { input: 0.05, output: 0.4 },
  'anthropic/claude-opus-4-1': { input: 15, output: 75 },
  'anthropic/claude-opus-4-0': { input: 15, output: 75 },
  'anthropic/claude-sonnet-4-5': { input: 3, output: 15 },
  'anthropic/claude-sonnet-4-0': { input: 3, output: 15 },
  'anthropic/claude-3-7-sonnet-latest': { input: 3, output: 15 },
  'anthropic/claude-haiku-4-5': { input: 1, output: 5 },
  'anthropic/claude-3-5-haiku-latest': { input: 0.8, output: 4 },
  'google/gemini-2.5-pro': { input: 1.25, output: 10 },
  'google/gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'google/gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
  'google/gemini-2.0-flash': { input: 0.1, output: 0.4 },
};

const priceFileSchema = z.record(z.string().min(1), z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }).strict());

/** Reads a user price file: `{"<model ref or prefix*>": {"input": <USD/M>, "output": <USD/M>}}`, merged over the defaults. */
export function readPriceFile(path: string): PriceTable {
  let data: unknown;
  let text: string;
  try {
    text = readTextFileSync(path);
    data = JSON.parse(text);
  } catch (error) {
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('config.invalid', `cannot read price file '${path}': ${fileProblem(path, error)}`, {
      fix: 'pass a JSON file like {"openai/gpt-4.1": {"input": 2, "output": 8}} (USD per million tokens)',
    });
  }
  const repeated = repeatedJsonKey(text);
  if (repeated !== undefined) {
    throw new ConfigError('config.invalid', `price file '${path}' gives '${repeated.key}' twice in one object (line ${repeated.line}, column ${repeated.column}): only the last would be used`, {
      fix: `give '${repeated.key}' once in that object`,
    });
  }
  const parsed = priceFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError('config.invalid', `price file '${path}': ${formatFieldPath(issue.path) || '(top level)'}: ${issue.message}`, {
      fix: 'each key is a model reference (or a prefix ending in *) mapping to {"input": <USD per million input tokens>, "output": <USD per million output tokens>}',
    });
  }
  return overBuiltInPrices(parsed.data);
}

/**
 * A user's prices over the built-in table: a user's `prefix*` key covers every built-in key under that prefix (its
 * `openai/*` prices openai/gpt-4.1 too, which an exact built-in key would otherwise win), except the built-in and
 * replay models, which make no paid call.
 */
function overBuiltInPrices(user: PriceTable): PriceTable {
  const prefixes = Object.keys(user).filter((key) => key.endsWith('*')).map((key) => key.slice(0, -1));
  const kept = Object.entries(defaultPrices).filter(([key]) => {
    if (key === 'builtin/*' || key === 'replay/*') return true;
    const covered = key.endsWith('*') ? key.slice(0, -1) : key;
    return !prefixes.some((prefix) => covered.startsWith(prefix));
  });
  return { ...Object.fromEntries(kept), ...user };
}

/** The price of a model: its exact reference, else the longest matching `prefix*` key; undefined when unknown. */
export function priceOf(prices: PriceTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(prices, model)) return prices[model];
  let best: { length: number; price: ModelPrice } | undefined;
  for (const [key, price] of Object.entries(prices)) {
    if (!key.endsWith('*')) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = { length: prefix.length, price };
  }
  return best?.price;
}
