/**
 * Host bindings as the sandbox installs them: `{ api: { createSession } , RESULT }` becomes one entry per
 * callable path (`api.createSession`, `RESULT`). Names must be identifiers and must not replace the sandbox's
 * own globals.
 */
import { ConfigError } from '../core/errors.ts';
import type { Binding, BindingFunction, Bindings } from './spec.ts';

export type FlatBinding = { path: string[]; returns: 'promise' | 'value'; call: BindingFunction };

const identifier = /^[A-Za-z_$][\w$]*$/;

/** Globals the sandbox installs itself (and the language's own), which a binding may not replace. */
export const reservedGlobalNames = new Set([
  'axios', 'fetch', 'require', 'console', 'URL', 'URLSearchParams', 'Headers', 'Blob', 'File', 'FormData',
  'AbortController', 'AbortSignal', 'Response', 'btoa', 'atob', 'TextEncoder', 'TextDecoder', 'Buffer', 'module', 'exports', 'setTimeout', 'setInterval', 'setImmediate',
  'clearTimeout', 'clearInterval', 'clearImmediate', 'queueMicrotask', 'globalThis', 'Object', 'Function', 'Array',
  'String', 'Number', 'Boolean', 'Symbol', 'Promise', 'JSON', 'Math', 'Date', 'Error', 'Reflect', 'Proxy',
]);

function isBindingObject(value: unknown): value is Exclude<Binding, BindingFunction> {
  return typeof value === 'object' && value !== null && typeof (value as { call?: unknown }).call === 'function'
    && ((value as { returns?: unknown }).returns === 'promise' || (value as { returns?: unknown }).returns === 'value');
}

function flatten(path: string[], binding: unknown): FlatBinding {
  const name = path.join('.');
  if (typeof binding === 'function') return { path, returns: 'promise', call: binding as BindingFunction };
  if (isBindingObject(binding)) return { path, returns: binding.returns, call: binding.call };
  throw new ConfigError('config.invalid', `program.bindings.${name} is not a function or { call, returns }`, {
    fix: `make program.bindings.${name} a function, or { call: function, returns: 'promise' | 'value' }`,
  });
}

function checkName(name: string, where: string): void {
  if (!identifier.test(name)) {
    throw new ConfigError('config.invalid', `${where} "${name}" is not a JavaScript identifier`, { fix: 'use names like createSession or api' });
  }
}

export function flattenBindings(bindings: Bindings): Map<string, FlatBinding> {
  const flat = new Map<string, FlatBinding>();
  for (const [name, value] of Object.entries(bindings)) {
    checkName(name, 'program.bindings key');
    if (reservedGlobalNames.has(name)) {
      throw new ConfigError('config.invalid', `program.bindings.${name} would replace a sandbox global`, { fix: `rename the binding ${name}` });
    }
    if (typeof value === 'function' || isBindingObject(value)) {
      flat.set(name, flatten([name], value));
      continue;
    }
    if (typeof value !== 'object' || value === null) flatten([name], value);
    for (const [member, binding] of Object.entries(value as Record<string, unknown>)) {
      checkName(member, `program.bindings.${name} member`);
      flat.set(`${name}.${member}`, flatten([name, member], binding));
    }
  }
  return flat;
}
