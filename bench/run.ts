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

/**
 * A fixed single-thread workload (JSON round trips and a sort, the runner's staple work), the median of five: figures
 * from two machines of the same kind can differ by 2x (2.1 GHz cores against faster ones), and this line says which
 * kind of core a bench ran on, so its figures are read against the right one.
 */
function machineSpeedMs(): number {
  const records = Array.from({ length: 2000 }, (_, index) => ({ id: `task-${index}`, value: (index * 7919) % 1000, tags: ['a', 'b', String(index % 13)], nested: { depth: index % 5, text: 'x'.repeat(index % 40) } }));
  const times: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const start = performance.now();
    for (let repeat = 0; repeat < 40; repeat += 1) {
      const copy = JSON.parse(JSON.stringify(records)) as typeof records;
      copy.sort((left, right) => left.value - right.value || left.id.localeCompare(right.id));
    }
    times.push(performance.now() - start);
  }
  times.sort((left, right) => left - right);
  return times[2] as number;
}

const [firstCore] = cpus();
console.log(`ToolForge bench — Node ${process.version}, ${cpus().length} cores (${firstCore?.model.trim() ?? 'unknown'}${firstCore && firstCore.speed > 0 ? `, ${firstCore.speed} MHz` : ''}), ${process.platform}-${process.arch}`);
console.log(`machine speed: a fixed workload (2,000 records JSON round-tripped and sorted 40 times, median of 5) took ${machineSpeedMs().toFixed(0)} ms on one core (lower is faster)`);
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
