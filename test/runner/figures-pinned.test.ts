import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { caseName, caseNeedsSharedData, measureCase, pinnedCases } from './figures-pinned.cases.ts';

/**
 * Every figure as pinned by scripts/pin-figures.ts (first before the contracts-v2 change; re-pinned once when the issue-9 fidelity fixes changed funcgen and nestful generation and classification, with the contracts merge checked to change nothing):
 * per-episode scores, failure codes and details, and every summary metric, exactly.
 */
const pinned = JSON.parse(readFileSync(new URL('./figures-pinned.json', import.meta.url), 'utf8')) as Record<string, unknown>;

for (const pinnedCase of pinnedCases) {
  const name = caseName(pinnedCase);
  const skip = caseNeedsSharedData(pinnedCase) ? 'needs ../shared/data (absent)' : false;
  test(`pinned figures: ${name}`, { skip }, async () => {
    assert.deepEqual(await measureCase(pinnedCase), pinned[name]);
  });
}
