import { runSuiteCases } from '../conformance/suite.cases.ts';
import { counterSuite } from '../fixtures/counter-suite.ts';

// A suite written only under test/: one line puts it through the whole conformance contract.
runSuiteCases(counterSuite, { count: 8 });
