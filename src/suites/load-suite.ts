/**
 * A built-in suite loaded alone, by id: for a thread that works for one suite (a generation thread), which would
 * otherwise load all five through the registry (~220 ms against ~50 ms for funcgen's own module, at every start).
 * test/suites/load-suite.test.ts keeps this list and the registry's the same.
 */
import type { Suite } from './spec.ts';

const suiteModules: Readonly<Record<string, () => Promise<Suite>>> = {
  funcgen: async () => (await import('./funcgen/index.ts')).funcgenSuite as unknown as Suite,
  nestful: async () => (await import('./nestful/index.ts')).nestfulSuite as unknown as Suite,
  stateful: async () => (await import('./stateful/index.ts')).statefulSuite as unknown as Suite,
  webapi: async () => (await import('./webapi/index.ts')).webapiSuite as unknown as Suite,
  toolbench: async () => (await import('./toolbench/index.ts')).toolbenchSuite as unknown as Suite,
};

/** The suite with this id, as getSuite gives it; an unknown id is the registry's error. */
export async function loadSuite(id: string): Promise<Suite> {
  const load = Object.hasOwn(suiteModules, id) ? suiteModules[id] : undefined;
  if (load) return load();
  return (await import('./registry.ts')).getSuite(id);
}
