/**
 * Wraps an episode's environment so every mode leaves the same structured record (CallRecord): tool
 * calls as the environment received them, host functions a program called, and program runs.
 * The wrapper changes nothing the model or the scorer sees.
 */
import type { BindingOutcome, CallRecord } from '../core/call-record.ts';
import type { Environment } from '../core/environment.ts';
import { errorMessage } from '../core/errors.ts';
import type { JsonValue } from '../core/json.ts';
import type { Binding, BindingFunction, Bindings } from '../core/program.ts';

export type RecordingEnvironment = { environment: Environment; calls: CallRecord[] };

export function recordCalls(inner: Environment): RecordingEnvironment {
  const calls: CallRecord[] = [];
  const origin = performance.now();
  const since = (start: number) => ({ startMs: Math.round(start - origin), durationMs: Math.round(performance.now() - start) });
  const environment: Environment = {
    listTools: () => inner.listTools(),
    async callTool(call, context) {
      const start = performance.now();
      const result = await inner.callTool(call, context);
      calls.push({
        type: 'tool', name: call.name, argumentsText: call.argumentsText, arguments: call.arguments ?? null,
        ...(call.parseError !== undefined ? { parseError: call.parseError } : {}), result, ...since(start),
      });
      return result;
    },
    snapshotState: () => inner.snapshotState(),
    dispose: () => inner.dispose(),
  };
  if (inner.bindings) {
    const innerBindings = inner.bindings.bind(inner);
    environment.bindings = () => {
      const host = innerBindings();
      const start = performance.now();
      return {
        ...host,
        functions: recordBindings(host.functions, calls, since),
        ...(host.variants ? {
          variants: host.variants.map((variant) => ({
            label: variant.label,
            open: async () => {
              const world = await variant.open();
              return { ...world, functions: recordBindings(world.functions, calls, since) };
            },
          })),
        } : {}),
        observe(run) {
          calls.push({ type: 'program', ...run, ...since(start) });
          host.observe?.(run);
        },
      };
    };
  }
  return { environment, calls };
}

type Since = (start: number) => { startMs: number; durationMs: number };

function recordBindings(bindings: Bindings, calls: CallRecord[], since: Since): Bindings {
  const wrapped: Bindings = {};
  for (const [name, value] of Object.entries(bindings)) {
    if (isBinding(value)) wrapped[name] = recordBinding(name, value, calls, since);
    else wrapped[name] = Object.fromEntries(Object.entries(value).map(([member, binding]) => [member, recordBinding(`${name}.${member}`, binding, calls, since)]));
  }
  return wrapped;
}

function isBinding(value: Binding | Record<string, Binding>): value is Binding {
  return typeof value === 'function' || (typeof (value as { call?: unknown }).call === 'function' && typeof (value as { returns?: unknown }).returns === 'string');
}

function recordBinding(name: string, binding: Binding, calls: CallRecord[], since: Since): Binding {
  const call: BindingFunction = typeof binding === 'function' ? binding : binding.call;
  const recorded: BindingFunction = (...args) => {
    const start = performance.now();
    const record = (result: BindingOutcome) => {
      calls.push({ type: 'binding', name, arguments: args, result, ...since(start) });
    };
    let value: unknown;
    try {
      value = call(...args);
    } catch (error) {
      record({ ok: false, error: errorMessage(error) });
      throw error;
    }
    if (value instanceof Promise) {
      return value.then(
        (output: unknown) => { record({ ok: true, output: toJson(output) }); return output; },
        (error: unknown) => { record({ ok: false, error: errorMessage(error) }); throw error; },
      );
    }
    record({ ok: true, output: toJson(value) });
    return value;
  };
  return typeof binding === 'function' ? recorded : { call: recorded, returns: binding.returns };
}

function toJson(value: unknown): JsonValue | null {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value) ?? 'null') as JsonValue;
}
