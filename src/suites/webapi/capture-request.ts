/**
 * From a request the sandbox recorded to the config WAPIIBench compares. The sandbox already logs
 * what axios plus the reference mock produce: the URL decoded with its query moved into `params`,
 * bodies serialised as axios would (JSON, form-urlencoded, multipart) and decoded as the mock does
 * (JSON when the text starts with `{`, else a form with `k[]` arrays and `a[b]` nesting, FormData as
 * strings). What is left here: a body the mock could not decode crashes it (a runtime error), a
 * body that is not an object carries no arguments, and empty `params` are no field. Header names are
 * kept as written: the comparison is exact, as the reference's is.
 */
import { isJsonObject } from '../../core/json.ts';
import type { RecordedRequest } from '../../sandbox/spec.ts';
import type { RequestConfig } from './request-config.ts';

export type { RecordedRequest };

export type CaptureResult = { ok: true; config: RequestConfig } | { ok: false; error: string };

export function captureRequestConfig(request: RecordedRequest): CaptureResult {
  if (request.dataParseError !== undefined) return { ok: false, error: `the request body cannot be decoded: ${request.dataParseError}` };
  const config: RequestConfig = { url: request.url, method: request.method.toLowerCase(), headers: { ...request.headers } };
  if (Object.keys(request.params).length > 0) config.params = { ...request.params };
  if (request.bodyType !== 'none' && isJsonObject(request.data)) config.data = request.data;
  return { ok: true, config };
}
