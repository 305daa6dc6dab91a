/**
 * Tests that need the real public data sets call `requireData` and pass the result as node:test's
 * `skip`: false when the data is here (`$TOOLFORGE_DATA`, `../shared/data` or the cache), otherwise
 * the reason, which the test output shows next to the skipped test. Behaviour tests use the small
 * files under test/fixtures/data instead (`fixturePath`), written for this project in each format.
 */
import { join } from 'node:path';
import { hasDataset, repositoryRoot } from '../src/core/data-location.ts';

export function requireData(name: string, ...file: string[]): string | false {
  if (hasDataset(name, ...file)) return false;
  const what = file.length > 0 ? `${name}/${file.join('/')}` : name;
  return `needs the public ${what} data, not on this machine (get it with \`toolforge data fetch ${name}\` or set $TOOLFORGE_DATA)`;
}

/** A file of the hand-written fixtures, laid out like a data folder: test/fixtures/data/<data set>/... */
export function fixturePath(...parts: string[]): string {
  return join(repositoryRoot, 'test', 'fixtures', 'data', ...parts);
}
