/**
 * The answer a strict server gives to a request its current version does not accept. Messages name
 * the endpoint and every offending parameter with what is expected, so a model can recover.
 */
import type { ErrorObject } from 'ajv';

export type CallRejection = {
  /** 301: the endpoint moved (the message names the new one); 404: no such endpoint; 400: bad arguments. */
  status: 301 | 400 | 404;
  /** The shared failure code the environment reports the result under. */
  code: 'tool.unknown' | 'arguments.invalid';
  message: string;
};

export function movedPermanently(from: string, to: string): CallRejection {
  return { status: 301, code: 'tool.unknown', message: `301 Moved Permanently: '${from}' has moved to '${to}' in the current API version; call '${to}' instead` };
}

export function notFound(name: string): CallRejection {
  return { status: 404, code: 'tool.unknown', message: `404 Not Found: there is no endpoint named '${name}'` };
}

export function badRequest(endpoint: string, problems: readonly string[]): CallRejection {
  return { status: 400, code: 'arguments.invalid', message: `400 Bad Request: ${endpoint}: ${problems.join('; ')}` };
}

/** One line per ajv error, naming the parameter by its dotted path. */
export function describeSchemaError(error: ErrorObject, prefix = ''): string {
  const path = error.instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const at = [prefix, ...path].filter((part) => part !== '').join('.');
  const parameter = (name: string): string => [at, name].filter((part) => part !== '').join('.');
  switch (error.keyword) {
    case 'required':
      return `missing required parameter '${parameter(String((error.params as { missingProperty: string }).missingProperty))}'`;
    case 'additionalProperties':
      return `unknown parameter '${parameter(String((error.params as { additionalProperty: string }).additionalProperty))}'`;
    case 'pattern': {
      const pattern = String((error.params as { pattern: string }).pattern);
      if (pattern === '^-?[0-9]+$') return `parameter '${at}' must be a string of digits (an integer written as a string, e.g. "5")`;
      if (pattern === '^(true|false)$') return `parameter '${at}' must be the string "true" or "false"`;
      return `parameter '${at}' must match pattern ${pattern}`;
    }
    default:
      return at === '' ? `arguments ${error.message ?? 'are invalid'}` : `parameter '${at}' ${error.message ?? 'is invalid'}`;
  }
}
