import { ConfigError } from '../core/errors.ts';
import type { Suite } from './spec.ts';
import { funcgenSuite } from './funcgen/index.ts';
import { nestfulSuite } from './nestful/index.ts';
import { statefulSuite } from './stateful/index.ts';
import { toolbenchSuite } from './toolbench/index.ts';
import { webapiSuite } from './webapi/index.ts';

/** Every suite, by id. A new suite is one folder plus one line here. */
const suites: readonly Suite[] = [
  funcgenSuite,
  nestfulSuite,
  statefulSuite,
  webapiSuite,
  toolbenchSuite,
];

export function listSuites(): readonly Suite[] {
  return suites;
}

export function getSuite(id: string): Suite {
  const suite = suites.find((candidate) => candidate.id === id);
  if (!suite) {
    throw new ConfigError('config.unknown-suite', `unknown suite '${id}'`, {
      fix: `use one of: ${suites.map((candidate) => candidate.id).join(', ')} — see 'toolforge suites'`,
    });
  }
  return suite;
}
