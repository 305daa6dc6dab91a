/**
 * Errors crossing a worker thread's boundary: structured cloning keeps an Error's message but not its class, code or
 * fix, so a thread sends this description and the receiving side makes the same typed error again.
 */
import { ConfigError, ProviderError, SandboxError, ToolForgeError } from './errors.ts';
import type { ErrorCode } from './errors.ts';

/** An error as it crosses the thread boundary: its class, code, message and fix survive. */
export type TransferredError = {
  kind: 'config' | 'provider' | 'sandbox' | 'toolforge' | 'other'; code?: ErrorCode; message: string; fix?: string; isRetryable?: boolean; statusCode?: number;
};

export function transferError(error: unknown): TransferredError {
  if (error instanceof ToolForgeError) {
    const kind = error instanceof ConfigError ? 'config' : error instanceof ProviderError ? 'provider' : error instanceof SandboxError ? 'sandbox' : 'toolforge';
    const message = error.problem;
    const provider = error instanceof ProviderError ? { isRetryable: error.isRetryable, ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }) } : {};
    return { kind, code: error.code, message, ...(error.fix === undefined ? {} : { fix: error.fix }), ...provider };
  }
  return { kind: 'other', message: error instanceof Error ? error.message : String(error) };
}

export function receiveError(error: TransferredError): Error {
  const options = error.fix === undefined ? {} : { fix: error.fix };
  const code = error.code ?? 'internal';
  switch (error.kind) {
    case 'config': return new ConfigError(code, error.message, options);
    case 'provider': return new ProviderError(code, error.message, { ...options, isRetryable: error.isRetryable ?? false, ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }) });
    case 'sandbox': return new SandboxError(code, error.message, options);
    case 'toolforge': return new ToolForgeError(code, error.message, options);
    case 'other': return new Error(error.message);
  }
}
