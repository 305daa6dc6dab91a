/**
 * Maps the arguments of a call between the old and the new interface by replaying a change log:
 * forward (old -> new: how the gold call reads under the new schema) or backward (new -> old: what
 * the original implementation must receive so that semantics hold). Both are exact for every change
 * kind; the one documented gap is a required parameter made optional without a default (the new
 * call may omit it, and the original implementation then answers as it does to a missing argument).
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { DriftChange, ParameterLocation } from './drift-model.ts';

export type ArgumentsByLocation = Partial<Record<ParameterLocation, JsonObject>>;

export function mapArgumentsToNew(arguments_: ArgumentsByLocation, changes: readonly DriftChange[]): ArgumentsByLocation {
  const result = copyArguments(arguments_);
  for (const change of changes) applyForward(result, change);
  return result;
}

export function mapArgumentsToOld(arguments_: ArgumentsByLocation, changes: readonly DriftChange[]): ArgumentsByLocation {
  const result = copyArguments(arguments_);
  for (let index = changes.length - 1; index >= 0; index -= 1) applyBackward(result, changes[index]);
  return result;
}

function copyArguments(arguments_: ArgumentsByLocation): ArgumentsByLocation {
  const copy: ArgumentsByLocation = {};
  for (const [location, values] of Object.entries(arguments_) as [ParameterLocation, JsonObject | undefined][]) {
    if (values !== undefined) copy[location] = structuredClone(values);
  }
  return copy;
}

function slot(arguments_: ArgumentsByLocation, location: ParameterLocation): JsonObject {
  arguments_[location] ??= {};
  return arguments_[location];
}

function applyForward(arguments_: ArgumentsByLocation, change: DriftChange): void {
  switch (change.kind) {
    case 'endpoint-renamed':
    case 'server-moved':
    case 'required-to-optional':
      return;
    case 'parameter-renamed':
      return move(arguments_[change.location], change.from, change.to);
    case 'type-drifted': {
      const values = arguments_[change.location];
      if (values && Object.hasOwn(values, change.parameter)) values[change.parameter] = stringifyValue(values[change.parameter]);
      return;
    }
    case 'default-flipped': {
      // The old call relied on the old default; under the new interface it must say so explicitly.
      const values = slot(arguments_, change.location);
      if (!Object.hasOwn(values, change.parameter)) values[change.parameter] = change.from;
      return;
    }
    case 'optional-to-required': {
      const values = slot(arguments_, change.location);
      if (!Object.hasOwn(values, change.parameter)) values[change.parameter] = change.default;
      return;
    }
    case 'nested-object': {
      const values = arguments_[change.location];
      if (!values) return;
      const nested: JsonObject = {};
      for (const field of change.fields) {
        if (!Object.hasOwn(values, field)) continue;
        nested[field] = values[field];
        delete values[field];
      }
      if (Object.keys(nested).length > 0) values[change.object] = nested;
      return;
    }
  }
}

function applyBackward(arguments_: ArgumentsByLocation, change: DriftChange): void {
  switch (change.kind) {
    case 'endpoint-renamed':
    case 'server-moved':
      return;
    case 'parameter-renamed':
      return move(arguments_[change.location], change.to, change.from);
    case 'type-drifted': {
      const values = arguments_[change.location];
      if (values && Object.hasOwn(values, change.parameter)) values[change.parameter] = parseValue(values[change.parameter], change.from);
      return;
    }
    case 'default-flipped': {
      // Omitted under the new interface means the new default, which the old implementation does not know.
      const values = slot(arguments_, change.location);
      if (!Object.hasOwn(values, change.parameter)) values[change.parameter] = change.to;
      return;
    }
    case 'required-to-optional': {
      const values = slot(arguments_, change.location);
      if (!Object.hasOwn(values, change.parameter) && change.default !== undefined) values[change.parameter] = change.default;
      return;
    }
    case 'optional-to-required':
      return;
    case 'nested-object': {
      const values = arguments_[change.location];
      const nested = values?.[change.object];
      if (!values || !isJsonObject(nested)) return;
      delete values[change.object];
      for (const field of change.fields) if (Object.hasOwn(nested, field)) values[field] = nested[field];
      return;
    }
  }
}

function move(values: JsonObject | undefined, from: string, to: string): void {
  if (!values || !Object.hasOwn(values, from)) return;
  const value = values[from];
  delete values[from];
  values[to] = value;
}

/** integer 5 -> "5", boolean true -> "true"; anything else is left for validation to reject. */
export function stringifyValue(value: JsonValue): JsonValue {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

/** The inverse of stringifyValue for a value the new schema accepted (pattern-checked). */
export function parseValue(value: JsonValue, type: 'integer' | 'boolean'): JsonValue {
  if (typeof value !== 'string') return value;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return /^-?[0-9]+$/.test(value) ? Number(value) : value;
}
