/**
 * Renders a request config as the axios call that sends it (`axios.<method>(url[, data][, config])`).
 * builtin/oracle answers with it, and the gold self-check runs it through the whole pipeline.
 * Accept is left to axios's default; Content-Type is written only when it is not JSON (axios then
 * serialises the body as that media type).
 */
import type { JsonObject } from '../../core/json.ts';
import type { RequestConfig } from './request-config.ts';

const methodsWithBody = new Set(['post', 'put', 'patch']);

export function renderAxiosCall(config: RequestConfig): string {
  const method = config.method.toLowerCase();
  const headers: JsonObject = {};
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (name === 'Accept' && value === 'application/json, text/plain, */*') continue;
    if (name === 'Content-Type' && (value === 'application/json' || !config.data)) continue;
    headers[name] = value;
  }
  const options: string[] = [];
  if (Object.keys(headers).length > 0) options.push(`headers: ${literal(headers, 1)}`);
  if (config.params && Object.keys(config.params).length > 0) options.push(`params: ${literal(config.params, 1)}`);
  const hasData = config.data !== undefined;
  if (hasData && !methodsWithBody.has(method)) options.push(`data: ${literal(config.data ?? {}, 1)}`);
  const argumentsText = [`'${escapeSingleQuoted(config.url)}'`];
  const optionsText = options.length > 0 ? `{\n  ${options.join(',\n  ')}\n}` : undefined;
  if (methodsWithBody.has(method)) {
    if (hasData) argumentsText.push(literal(config.data ?? {}, 0));
    else if (optionsText) argumentsText.push('null');
  }
  if (optionsText) argumentsText.push(optionsText);
  return `axios.${method}(${argumentsText.join(', ')});\n`;
}

/** A JSON literal (valid JavaScript), indented to sit at `depth`. */
function literal(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).split('\n').join(`\n${'  '.repeat(depth)}`);
}

function escapeSingleQuoted(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n');
}
