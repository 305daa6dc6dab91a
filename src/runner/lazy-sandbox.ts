/**
 * The sandbox pool a run owns: created the first time a code episode needs it (runs without code
 * never start workers), disposed once by its owner when the run ends.
 */
import { createSandbox } from '../sandbox/index.ts';
import type { Sandbox } from '../sandbox/spec.ts';

export type LazySandbox = { get(): Sandbox; dispose(): Promise<void> };

export function createLazySandbox(poolSize = 2): LazySandbox {
  let sandbox: Sandbox | undefined;
  return {
    get() {
      sandbox ??= createSandbox({ poolSize });
      return sandbox;
    },
    async dispose() {
      const created = sandbox;
      sandbox = undefined;
      await created?.dispose();
    },
  };
}
