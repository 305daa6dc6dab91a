/**
 * The shape every drift operator works on, whatever the source: a tool (ToolSpec, JSON Schema
 * arguments) or an OpenAPI operation (query/header parameters, JSON body properties) is read into
 * a DriftEndpoint, operators rewrite it and log each change, and the change log alone is enough to
 * map calls between the old and the new interface (see argument-mapping.ts).
 */
import type { JsonObject, JsonValue } from '../../core/json.ts';
import type { Rng } from '../../core/rng.ts';

/** Where an argument travels. Tools have one flat argument object; HTTP requests have several. */
export type ParameterLocation = 'argument' | 'query' | 'header' | 'body' | 'path';

export type DriftParameter = {
  name: string;
  location: ParameterLocation;
  required: boolean;
  /** The JSON Schema of the value (never mutated in place: operators copy). */
  schema: JsonObject;
  /** Source fields the operators do not touch (an OpenAPI parameter's description, style...). */
  extra?: JsonObject;
};

export type DriftEndpoint = {
  /** Stable identity of the endpoint in the old interface: a tool name or `METHOD template`. */
  key: string;
  /** The name the caller uses: a tool name, or an OpenAPI path template. */
  name: string;
  /** 'tool' names a function; 'http' names a path template (then `method` is set). */
  kind: 'tool' | 'http';
  method?: string;
  parameters: DriftParameter[];
};

/** One exact change, in the order it was applied. Parameter names are the names at that point. */
export type DriftChange =
  | { kind: 'endpoint-renamed'; from: string; to: string }
  | { kind: 'server-moved'; from: string; to: string }
  | { kind: 'parameter-renamed'; location: ParameterLocation; from: string; to: string }
  | { kind: 'type-drifted'; location: ParameterLocation; parameter: string; from: 'integer' | 'boolean'; to: 'string' }
  | { kind: 'default-flipped'; location: ParameterLocation; parameter: string; from: JsonValue; to: JsonValue }
  | { kind: 'nested-object'; location: ParameterLocation; object: string; fields: string[] }
  | { kind: 'required-to-optional'; location: ParameterLocation; parameter: string; default?: JsonValue }
  | { kind: 'optional-to-required'; location: ParameterLocation; parameter: string; default: JsonValue };

export type DriftChangeKind = DriftChange['kind'];

/** The change log of one endpoint: its old key and name, its new name, and what changed. */
export type EndpointChangeLog = {
  key: string;
  /** HTTP method of an OpenAPI operation (lower case). */
  method?: string;
  from: string;
  to: string;
  changes: DriftChange[];
};

/** An operator rewrites one endpoint; it never mutates its input. */
export type DriftOperator = (endpoint: DriftEndpoint, context: OperatorContext) => DriftEndpoint & { changes: DriftChange[] };

export type OperatorContext = {
  /** A random stream for this endpoint and operator (derived from the seed, the operator and the key). */
  rng: Rng;
  /** Probability of the stochastic operators (URL evolution, nesting, swaps); the reference uses 0.99. */
  probability: number;
  /** Names of the other endpoints of the same interface, to avoid renaming onto one of them. */
  takenNames: { has(name: string): boolean };
};

/** Locations whose parameters an operator may rewrite (a path placeholder never reaches the caller by name). */
export function isDriftable(parameter: DriftParameter): boolean {
  return parameter.location !== 'path';
}

/** Locations where an object-valued argument is natural (a flat query string has no nesting). */
export function isNestable(location: ParameterLocation): boolean {
  return location === 'argument' || location === 'body';
}

export function copyEndpoint(endpoint: DriftEndpoint): DriftEndpoint {
  return { ...endpoint, parameters: endpoint.parameters.map((parameter) => ({ ...parameter, schema: structuredClone(parameter.schema) })) };
}
