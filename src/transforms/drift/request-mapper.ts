/**
 * Maps HTTP requests (axios-like configs: url, method, headers, params, data) between the old and
 * the drifted OpenAPI document, from the drift's log alone. `toNew` turns an expected request of
 * the old API into the one the new API expects (what a judge compares against); `toOld` maps a
 * request written for the new API back onto the old one (what the original implementation serves).
 * The URL is matched as WAPIIBench matches it: server stripped, `{x}` = `[^/?&]+`, fewest
 * placeholders first, then the longest template.
 */
import type { JsonObject } from '../../core/json.ts';
import { compilePathTemplate } from '../../openapi/path-matcher.ts';
import type { ArgumentsByLocation } from './argument-mapping.ts';
import { mapArgumentsToNew, mapArgumentsToOld } from './argument-mapping.ts';
import type { EndpointChangeLog } from './drift-model.ts';
import type { DriftedOpenApi } from './openapi-drift.ts';

export type HttpRequest = { url: string; method: string; headers?: JsonObject; params?: JsonObject; data?: JsonObject };

export type RequestMapping = { ok: true; request: HttpRequest; endpoint: string } | { ok: false; reason: string };

export type RequestMapper = {
  toNew(request: HttpRequest): RequestMapping;
  toOld(request: HttpRequest): RequestMapping;
};

/** `servers` are the old document's server URLs (the drift log only lists the ones that moved). */
export function createRequestMapper(drifted: Pick<DriftedOpenApi, 'servers' | 'log'>, servers: readonly string[] = []): RequestMapper {
  const moves = new Map(drifted.servers.map((move) => [move.from, move.to]));
  const oldServers = [...new Set([...servers, ...moves.keys()])];
  const pairs = oldServers.map((from) => ({ from, to: moves.get(from) ?? from }));
  return {
    toNew: (request) => mapRequest(request, drifted.log, pairs, 'forward'),
    toOld: (request) => mapRequest(request, drifted.log, pairs.map(({ from, to }) => ({ from: to, to: from })), 'backward'),
  };
}

function mapRequest(
  request: HttpRequest,
  log: readonly EndpointChangeLog[],
  servers: readonly { from: string; to: string }[],
  direction: 'forward' | 'backward',
): RequestMapping {
  const [base, query] = splitQuery(request.url);
  const server = [...servers].sort((left, right) => right.from.length - left.from.length)
    .find((candidate) => candidate.from !== '' && base.startsWith(candidate.from));
  const relative = server ? base.slice(server.from.length) : base;
  const method = request.method.toLowerCase();
  const candidates = log
    .filter((entry) => entry.method === method)
    .map((entry) => {
      const source = direction === 'forward' ? entry.from : entry.to;
      const compiled = compilePathTemplate(source);
      return { entry, source, compiled, match: compiled.pattern.exec(relative) };
    })
    .filter((candidate) => candidate.match !== null)
    .sort((left, right) => left.compiled.placeholders.length - right.compiled.placeholders.length || right.source.length - left.source.length);
  const best = candidates[0];
  if (!best || !best.match) return { ok: false, reason: `no ${method.toUpperCase()} operation matches '${relative}'` };
  const values = new Map(best.compiled.placeholders.map((name, index) => [name, best.match?.[index + 1] ?? '']));
  const targetTemplate = direction === 'forward' ? best.entry.to : best.entry.from;
  const path = targetTemplate.replace(/\{([^}]*)\}/g, (_whole, name: string) => values.get(name) ?? `{${name}}`);
  const arguments_: ArgumentsByLocation = {};
  if (request.headers) arguments_.header = request.headers;
  if (request.params) arguments_.query = request.params;
  if (request.data) arguments_.body = request.data;
  const mapped = direction === 'forward' ? mapArgumentsToNew(arguments_, best.entry.changes) : mapArgumentsToOld(arguments_, best.entry.changes);
  const result: HttpRequest = { url: `${server ? server.to : ''}${path}${query}`, method: request.method };
  if (mapped.header && (request.headers || Object.keys(mapped.header).length > 0)) result.headers = mapped.header;
  if (mapped.query && (request.params || Object.keys(mapped.query).length > 0)) result.params = mapped.query;
  if (mapped.body && (request.data || Object.keys(mapped.body).length > 0)) result.data = mapped.body;
  return { ok: true, request: result, endpoint: best.entry.key };
}

function splitQuery(url: string): [string, string] {
  const index = url.search(/[?#]/);
  return index === -1 ? [url, ''] : [url.slice(0, index), url.slice(index)];
}
