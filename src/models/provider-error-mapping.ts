/**
 * Turns whatever a vendor SDK threw into a ProviderError whose `isRetryable` tells the runner what to
 * do: rate limits, server errors, dropped connections and garbage bodies are retried; every other 4xx is
 * our request's fault and retrying it would only burn quota. Adapters never retry on their own.
 */
import { ProviderError } from '../core/errors.ts';
import { formatFieldPath } from '../core/field-path.ts';

/** What the message needs to say which provider failed and how to fix it. */
export type ProviderErrorContext = {
  provider: string;
  modelId: string;
  /** The environment variable the key came from (none for keyless local servers). */
  apiKeyVariable: string | undefined;
  baseUrl: string | undefined;
};

/** A base URL as messages show it: a user name and password in it (http://user:pw@host/v1) are not repeated. */
export function displayedBaseUrl(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined;
  try {
    const url = new URL(baseUrl);
    if (url.username === '' && url.password === '') return baseUrl;
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return baseUrl;
  }
}

/** An HTTP error answer, however the SDK exposed it. */
export type HttpFailure = {
  status: number;
  /** Retry-After header value (or `<ms>ms` from retry-after-ms), when the response had one. */
  retryAfter: string | null | undefined;
  /** The server's own verdict (`x-should-retry: true|false`, as OpenAI and Anthropic send it), when it gave one. */
  shouldRetry?: boolean;
  /** The vendor's own error text, quoted in our message. */
  detail: string;
};

const connectionErrorCodes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
]);
const timeoutErrorCodes = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Seconds to wait from a Retry-After value: delta-seconds, an HTTP date (relative to `nowMs`), or
 * `<n>ms` as `retryAfterHeader` renders OpenAI's and Anthropic's more precise retry-after-ms.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  // A header sent twice arrives joined by a comma ("5, 5"): the first value counts.
  const seconds = /^(\d+(?:\.\d+)?)(?:\s*,.*)?$/.exec(trimmed);
  if (seconds) return Number(seconds[1]);
  const milliseconds = /^(\d+(?:\.\d+)?)ms(?:\s*,.*)?$/.exec(trimmed);
  if (milliseconds) return Number(milliseconds[1]) / 1000;
  // Only HTTP's own date forms: Date.parse also takes "5, 5" or "-5" as dates in 2001, a wait of nothing.
  const date = httpDate.exec(trimmed);
  if (!date) return undefined;
  const dateMs = Date.parse(date[1] === undefined ? date[0] : `${date[0]} GMT`);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, Math.ceil((dateMs - nowMs) / 1000));
}

/** IMF-fixdate, RFC 850 and asctime (the three forms of RFC 9110 section 5.6.7), at the start of the value. */
const httpDate = /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} (\d{4}))/;

/** An error page can be a megabyte of HTML: a message keeps its start. */
const longestDetail = 2_000;

/** `detail` cut to its first 2,000 characters, saying how many more there were: every provider's error text. */
export function cappedDetail(detail: string): string {
  return detail.length <= longestDetail ? detail : `${detail.slice(0, longestDetail)}... (${detail.length - longestDetail} more characters)`;
}

export function providerErrorFromHttpFailure(failure: HttpFailure, context: ProviderErrorContext, cause?: unknown): ProviderError {
  const { status } = failure;
  const detail = cappedDetail(failure.detail);
  const where = `${context.provider} returned HTTP ${status} for model '${context.modelId}'${detail ? `: ${detail}` : ''}`;
  // The server's own word on retrying wins (the SDKs' rule): a 400 it says to retry is transient, a 500 it says not to is not.
  if (failure.shouldRetry === false) {
    // OpenAI answers an exhausted quota with a 429 that says not to retry: waiting would not help.
    if (status === 429) {
      return new ProviderError('provider.rate-limited', `${where} (rate limited; the server says not to retry)`, {
        statusCode: status, isRetryable: false, cause, fix: `retrying will not help (an exhausted quota or spending limit?): check the account's plan and billing, then resume the run with --resume`,
      });
    }
    return new ProviderError('provider.request-rejected', `${where} (the server says not to retry)`, {
      statusCode: status, isRetryable: false, cause, fix: status >= 500 ? `the ${context.provider} service refused this request for good; check the request and the model id '${context.modelId}'` : rejectionFix(status, context),
    });
  }
  if (failure.shouldRetry === true && status !== 429 && status < 500 && status !== 408 && status !== 409) {
    return new ProviderError('provider.server-error', `${where} (the server says to retry)`, {
      statusCode: status, isRetryable: true, retryAfterSeconds: parseRetryAfter(failure.retryAfter), cause,
      fix: `the ${context.provider} service asked for a retry; the runner retries, or resume the run later with --resume`,
    });
  }
  if (status === 429) {
    const retryAfterSeconds = parseRetryAfter(failure.retryAfter);
    return new ProviderError('provider.rate-limited', `${where} (rate limited)`, {
      statusCode: status, isRetryable: true, retryAfterSeconds, cause,
      fix: 'wait and retry (the runner backs off automatically), or lower --concurrency',
    });
  }
  if (status >= 500 || status === 408 || status === 409) {
    // 529 is Anthropic's "overloaded"; 408 is a server-side timeout; 409 is OpenAI's lock conflict. All pass with time.
    return new ProviderError('provider.server-error', `${where} (server error)`, {
      statusCode: status, isRetryable: true, retryAfterSeconds: parseRetryAfter(failure.retryAfter), cause,
      fix: `the ${context.provider} service is failing; the runner retries, or resume the run later with --resume`,
    });
  }
  return new ProviderError('provider.request-rejected', `${where} (request rejected)`, {
    statusCode: status, isRetryable: false, cause, fix: rejectionFix(status, context),
  });
}

function rejectionFix(status: number, context: ProviderErrorContext): string {
  if (status === 401 || status === 403) {
    return context.apiKeyVariable
      ? `check the API key in ${context.apiKeyVariable} (it is missing, invalid or lacks access to '${context.modelId}')`
      : `the server at ${context.baseUrl ?? 'the base URL'} wants credentials: set OPENAI_COMPATIBLE_API_KEY to the key it expects`;
  }
  if (status === 404) {
    return `check the model id '${context.modelId}'${context.baseUrl ? ` and the base URL ${context.baseUrl}` : ''}`;
  }
  return `the request was refused as sent; check the model id '${context.modelId}' supports tools and these settings`;
}

/**
 * The error an adapter rethrows for anything its SDK threw: a cancelled request stays the abort error
 * (the runner stopped it, nothing failed); HTTP answers are classified by status; the rest by transport.
 */
export function toProviderError(error: unknown, context: ProviderErrorContext, signal: AbortSignal, retryAfter?: string | null): unknown {
  if (signal.aborted) return error;
  const failure = httpFailureOf(error, retryAfter);
  return failure ? providerErrorFromHttpFailure(failure, context, error) : providerErrorFromUnknown(error, context);
}

/** openai and @anthropic-ai/sdk errors carry `status` and `headers`; @google/genai's only `status`. */
function httpFailureOf(error: unknown, retryAfter: string | null | undefined): HttpFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const { status, headers } = error as Error & { status?: unknown; headers?: unknown };
  if (typeof status !== 'number') return undefined;
  const headerValue = headers instanceof Headers ? retryAfterHeader(headers) : undefined;
  const shouldRetry = headers instanceof Headers ? headers.get('x-should-retry')?.trim().toLowerCase() : undefined;
  return {
    status, retryAfter: headerValue ?? retryAfter, detail: error.message,
    ...(shouldRetry === 'true' ? { shouldRetry: true } : shouldRetry === 'false' ? { shouldRetry: false } : {}),
  };
}

/** The wait a response asks for: retry-after-ms (milliseconds, rendered `<n>ms`) wins over Retry-After. */
export function retryAfterHeader(headers: Headers): string | null {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return `${milliseconds.trim()}ms`;
  return headers.get('retry-after');
}

/** Transport failures (nothing usable came back) and everything else an SDK may throw. */
export function providerErrorFromUnknown(error: unknown, context: ProviderErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const where = `${context.provider} model '${context.modelId}'${context.baseUrl ? ` at ${context.baseUrl}` : ''}`;
  const undecodable = causeNamed(error, 'UndecodableBodyError');
  if (undecodable) return invalidResponseError(context, undecodable.message, error);
  const certificate = certificateProblem(error);
  if (certificate !== undefined) {
    // Retrying cannot help: the same certificate comes back every time.
    return new ProviderError('provider.connection', `could not connect to ${where}: its TLS certificate is not trusted (${certificate})`, {
      isRetryable: false, cause: error,
      fix: 'use the server\'s trusted address, or give Node its certificate authority: NODE_EXTRA_CA_CERTS=<ca.pem> (for a local server, http:// needs no certificate)',
    });
  }
  const kind = transportKind(error);
  if (kind === 'timeout') {
    return new ProviderError('provider.timeout', `request to ${where} timed out`, {
      isRetryable: true, cause: error, fix: 'the runner retries; check the server is not overloaded',
    });
  }
  if (kind === 'connection') {
    if (!neverConnected(error)) {
      // Connected, then cut: a reset or a body that stopped partway, not a server that is not there.
      return new ProviderError('provider.connection', `lost the connection to ${where} before its answer was complete: ${describe(error)}`, {
        isRetryable: true, cause: error, fix: `the runner retries; if it keeps happening, the server${context.baseUrl ? ` at ${context.baseUrl}` : ''} (or a proxy before it) is closing connections`,
      });
    }
    return new ProviderError('provider.connection', `could not connect to ${where}: ${describe(error)}`, {
      isRetryable: true, cause: error, fix: context.baseUrl ? `check the server at ${context.baseUrl} is running` : 'check the network connection',
    });
  }
  if (error instanceof SyntaxError) return invalidResponseError(context, `the body is not valid JSON (${error.message})`, error);
  // Not a transport or HTTP failure we know: most likely our bug or an SDK change, so retrying won't help.
  return new ProviderError('internal', `unexpected failure calling ${where}: ${describe(error)}`, {
    isRetryable: false, cause: error, fix: 'this looks like a bug or an incompatible server; report it with the message above',
  });
}

export function invalidResponseError(context: ProviderErrorContext, issue: string, cause?: unknown): ProviderError {
  return new ProviderError('provider.invalid-response', `${context.provider} sent an invalid response for model '${context.modelId}': ${issue}`, {
    isRetryable: true, cause,
    fix: context.baseUrl ? `check ${context.baseUrl} speaks the ${context.provider} API` : 'the runner retries; if it persists the API changed',
  });
}

/**
 * Looks down the cause chain; a timeout anywhere wins over the generic "fetch failed" around it. An
 * AbortError we did not cause (the caller's signal is not aborted) is the SDK's own request timeout
 * (@google/genai aborts on `httpOptions.timeout`); openai names its timeout class only by constructor.
 */
function transportKind(error: unknown): 'timeout' | 'connection' | undefined {
  let kind: 'connection' | undefined;
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (typeof current !== 'object') break;
    const { name, code, message } = current as { name?: unknown; code?: unknown; message?: unknown };
    const className = (current as { constructor?: { name?: unknown } }).constructor?.name;
    if (name === 'APIConnectionTimeoutError' || className === 'APIConnectionTimeoutError' || name === 'TimeoutError' || name === 'AbortError'
      || (typeof code === 'string' && timeoutErrorCodes.has(code))) return 'timeout';
    if ((typeof code === 'string' && connectionErrorCodes.has(code)) || name === 'APIConnectionError' || (name === 'TypeError' && message === 'fetch failed')) {
      kind = 'connection';
    }
  }
  return kind;
}

/** Node's codes for a certificate it does not trust (OpenSSL's verify errors and its own host name check). */
const certificateCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REVOKED', 'CERT_UNTRUSTED', 'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH',
]);

/** The certificate problem down the cause chain ("self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)"), if any. */
function certificateProblem(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (typeof current !== 'object') break;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && certificateCodes.has(code)) return `${typeof message === 'string' ? message : 'certificate error'} (${code})`;
  }
  return undefined;
}

const noConnectionCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether the cause chain says no connection was made (refused, no such host, no route). */
function neverConnected(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (typeof current !== 'object') break;
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && noConnectionCodes.has(code)) return true;
    // Errors that group several attempts (an AggregateError of IPv4 and IPv6 refusals) hold the codes inside.
    const inner = (current as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.some((each) => neverConnected(each))) return true;
  }
  return false;
}

/** The first error in the cause chain with this name. */
function causeNamed(error: unknown, name: string): Error | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof Error && current.name === name) return current;
  }
  return undefined;
}

function describe(error: unknown): string {
  const messages: string[] = [];
  for (let current: unknown = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof Error) messages.push(current.message);
    else { messages.push(String(current)); break; }
  }
  return messages.join(': ');
}

/** "choices.0.message: Invalid input" for the first few issues of a failed response parse. */
export function summarizeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.slice(0, 3).map((issue) => `${formatFieldPath(issue.path) || '(body)'}: ${issue.message}`).join('; ');
}

/**
 * Why a 200 answer's body is not a response, in the body's own words when it has some: gateways send their errors
 * as `{"error": {"message": ...}}` with status 200, and a proxy's HTML page arrives as text. Else the schema's issues.
 */
export function describeInvalidBody(body: unknown, issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  if (typeof body === 'string') return `the body is text, not JSON (it starts ${JSON.stringify(body.trim().slice(0, 80))})`;
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const message = typeof error === 'string' ? error
    : typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string' ? (error as { message: string }).message : undefined;
  if (message !== undefined) return `the body is an error, not a response: ${JSON.stringify(message.slice(0, 300))}`;
  return summarizeIssues(issues);
}
