/** The sandbox for model-written JavaScript. See ./spec.ts for the contract. */
import { QuickJsSandbox } from './quickjs-sandbox.ts';
import type { Sandbox, SandboxOptions } from './spec.ts';

export * from './spec.ts';
export { parseFormBody } from './request-record.ts';

/** The QuickJS/WASM sandbox (worker pool). Call `dispose()` when done. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new QuickJsSandbox(options);
}
