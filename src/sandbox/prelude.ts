/**
 * The in-sandbox installer: the fragments under ./prelude/ (plain JavaScript, run inside QuickJS) joined into
 * one function `(host, settingsJson) => controls`. Kept as .js files so they read as the code they are.
 */
import { readFileSync } from 'node:fs';

const fragments = ['runtime.js', 'web.js', 'http.js', 'install.js'];

/** What the installer reads from `settingsJson`. */
export type PreludeSettings = {
  seed: number;
  virtualEpochMs: number;
  /** Budget for large string and typed-array allocations (QuickJS's own limit misses them). */
  memoryLimitBytes: number;
  bindings: { path: string[]; returns: 'promise' | 'value' }[];
};

let cachedSource: string | undefined;

export function preludeSource(): string {
  cachedSource ??= `(function (host, settingsJson) {\n${fragments
    .map((name) => readFileSync(new URL(`./prelude/${name}`, import.meta.url), 'utf8'))
    .join('\n')}\n})`;
  return cachedSource;
}
