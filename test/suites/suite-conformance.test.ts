import { runSuiteCases } from '../conformance/suite.cases.ts';
import { getSuite, listSuites } from '../../src/suites/registry.ts';
import type { SuiteCaseOptions } from '../conformance/suite.cases.ts';
import { fixturePath, requireData } from '../require-data.ts';

/** Per-suite sizes; every registered suite must appear here, so a new suite cannot skip the contract. */
const options: Record<string, SuiteCaseOptions> = {
  funcgen: { count: 20 },
  nestful: { count: 20 },
  // The 395 WAPIIBench tasks when the public data is here, else tasks generated from a hand-written spec fixture.
  // The 765 StableToolBench queries when the public data is here, else the four hand-written fixture queries.
  toolbench: requireData('stabletoolbench', 'solvable_queries', 'test_instruction') ? { count: 4, params: { data: fixturePath('stabletoolbench', 'solvable_queries', 'test_instruction', 'G1_instruction.json') } } : { count: 20 },
  webapi: requireData('wapiibench') ? { count: 20, params: { spec: fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml') } } : { count: 20, seedChangesTasks: false },
};

for (const suite of listSuites()) {
  const suiteOptions = options[suite.id];
  if (!suiteOptions) throw new Error(`suite '${suite.id}' has no conformance options in test/suites/suite-conformance.test.ts`);
  runSuiteCases(getSuite(suite.id), suiteOptions);
}
