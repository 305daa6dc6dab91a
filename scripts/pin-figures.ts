/** Writes test/runner/figures-pinned.json from the current code (run once, before a contract change). */
import { writeFileSync } from 'node:fs';
import { caseName, caseNeedsSharedData, measureCase, pinnedCases } from '../test/runner/figures-pinned.cases.ts';

const figures: Record<string, unknown> = {};
for (const pinned of pinnedCases) {
  if (caseNeedsSharedData(pinned)) throw new Error(`${caseName(pinned)} needs ../shared data`);
  figures[caseName(pinned)] = await measureCase(pinned);
}
writeFileSync('test/runner/figures-pinned.json', JSON.stringify(figures, null, 1) + '\n');
process.exit(0);
