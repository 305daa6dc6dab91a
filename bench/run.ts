/**
 * `npm run bench`: prints throughput figures, asserts nothing. Each area's figures live in
 * bench/<name>.ts, which exports `async function bench(): Promise<BenchFigure[]>` (see
 * bench-figure.ts). Every such file here is run: the suites in their usual order, then the rest.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpus } from 'node:os';
import type { BenchFigure } from './bench-figure.ts';

const folder = dirname(fileURLToPath(import.meta.url));
const preferredOrder = ['funcgen', 'nestful', 'webapi'];
const present = readdirSync(folder).filter((file) => file.endsWith('.ts') && !['run.ts', 'bench-figure.ts'].includes(file))
  .map((file) => file.slice(0, -'.ts'.length)).filter((name) => !preferredOrder.includes(name)).sort();
const benchFiles = [...preferredOrder, ...present];

console.log(`ToolForge bench — Node ${process.version}, ${cpus().length} cores, ${process.platform}-${process.arch}`);
for (const name of benchFiles) {
  const path = join(folder, `${name}.ts`);
  if (!existsSync(path)) {
    console.log(`\n${name}: (no bench/${name}.ts yet)`);
    continue;
  }
  console.log(`\n${name}:`);
  // One suite's broken bench must not hide the others' figures.
  try {
    const module = await import(pathToFileURL(path).href) as { bench?: () => Promise<BenchFigure[] | void> };
    if (!module.bench) {
      console.log(`  bench/${name}.ts exports no bench() function`);
      continue;
    }
    const figures = await module.bench();
    for (const figure of figures ?? []) console.log(`  ${figure.name}: ${formatValue(figure.value)} ${figure.unit}`);
  } catch (error) {
    console.log(`  failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

function formatValue(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toPrecision(3);
}
