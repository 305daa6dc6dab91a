/**
 * Typed errors with stable codes. Every message says what went wrong and how to fix it.
 * Model faults are never thrown: they are recorded and scored. Thrown errors are either the user's
 * (configuration, input files) or infrastructure (provider outages, sandbox crashes, our own bugs).
 */
export type ErrorCode =
  | 'config.invalid'
  | 'config.unknown-suite'
  | 'config.unknown-knob'
  | 'config.invalid-knob'
  | 'config.unknown-model'
  | 'config.missing-api-key'
  | 'config.unsupported-mode'
  | 'input.unreadable'
  | 'input.invalid'
  | 'data.missing'
  | 'data.unreachable'
  | 'data.checksum-mismatch'
  | 'store.invalid'
  | 'store.unknown-run'
  | 'store.unwritable'
  | 'store.locked'
  | 'store.run-busy'
  | 'store.unreachable'
  | 'store.postgres'
  | 'provider.rate-limited'
  | 'provider.server-error'
  | 'provider.connection'
  | 'provider.timeout'
  | 'provider.request-rejected'
  | 'provider.invalid-response'
  | 'sandbox.crashed'
  | 'agent.disconnected'
  | 'agent.timeout'
  | 'suite.invalid-task'
  | 'suite.unsolvable-task'
  | 'suite.invalid-details'
  | 'internal';

export class ToolForgeError extends Error {
  readonly code: ErrorCode;
  /** How to fix it, shown after the message. */
  readonly fix: string | undefined;

  constructor(code: ErrorCode, message: string, options: { fix?: string; cause?: unknown } = {}) {
    super(options.fix ? `${message}\n  fix: ${options.fix}` : message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.fix = options.fix;
  }

  /** What went wrong, without the fix: for an error that restates this one with more context or another fix. */
  get problem(): string {
    const suffix = this.fix ? `\n  fix: ${this.fix}` : '';
    return suffix && this.message.endsWith(suffix) ? this.message.slice(0, -suffix.length) : this.message;
  }
}

/** The user's input is wrong: the CLI prints the message and exits non-zero before anything runs. */
export class ConfigError extends ToolForgeError {}

/** A provider call failed. `isRetryable` decides whether the runner retries it; it is never scored. */
export class ProviderError extends ToolForgeError {
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;
  /** Seconds the provider asked us to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: {
    statusCode?: number; isRetryable: boolean; retryAfterSeconds?: number; fix?: string; cause?: unknown;
  }) {
    super(code, message, options);
    this.statusCode = options.statusCode;
    this.isRetryable = options.isRetryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The sandbox itself failed (not the program in it): infrastructure, never scored. */
export class SandboxError extends ToolForgeError {}

/** True for errors that are not the model's fault and must not be scored. */
export function isInfrastructureError(error: unknown): boolean {
  if (error instanceof ConfigError) return false;
  return true;
}

export function isRetryableError(error: unknown): boolean {
  if (error instanceof ProviderError) return error.isRetryable;
  if (error instanceof SandboxError) return true;
  return false;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
