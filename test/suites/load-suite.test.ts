import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { loadSuite } from '../../src/suites/load-suite.ts';
import { getSuite, listSuites } from '../../src/suites/registry.ts';

test('every registered suite loads alone by id as the same object the registry holds', async () => {
  for (const suite of listSuites()) assert.equal(await loadSuite(suite.id), getSuite(suite.id), suite.id);
});

test('an unknown suite id is the registry\'s error, naming the suites there are', async () => {
  await assert.rejects(loadSuite('funcgne'), (error: unknown) => error instanceof ConfigError && error.code === 'config.unknown-suite' && /funcgen/.test(error.fix ?? ''));
  await assert.rejects(loadSuite('constructor'), (error: unknown) => error instanceof ConfigError && error.code === 'config.unknown-suite');
});
