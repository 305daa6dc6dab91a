/**
 * Sandbox throughput: WAPIIBench-style programs (one intercepted axios call) and StateGen-style programs (five
 * awaited host bindings), through the QuickJS worker pool. Prints figures, asserts nothing.
 */
import { createSandbox, type SandboxProgram } from '../src/sandbox/index.ts';
import { itemsPerSecond, type BenchFigure } from './bench-figure.ts';

const webapiProgram: SandboxProgram = {
  code: `const axios = require('axios');
axios.post('https://app.asana.com/api/1.0/tasks', { data: { name: 'Write report', workspace: '12345' } },
  { headers: { Authorization: 'Bearer <token>' }, params: { opt_pretty: true } });`,
};

const statefulProgram: SandboxProgram = {
  code: `const created = await api.create({ source: 'web', type: 'click', data: { x: 1 } });
let total = 0;
for (let index = 0; index < 4; index += 1) total += (await api.get(created.id)).count;
return total;`,
  bindings: { api: { create: async () => ({ id: 7 }), get: async () => ({ count: 2 }) } },
};

export async function bench(): Promise<BenchFigure[]> {
  const coldStart = performance.now();
  const sandbox = createSandbox({ poolSize: 2 });
  await sandbox.run({ code: 'return 1;' });
  const firstProgramMs = performance.now() - coldStart;
  try {
    const batch = (program: SandboxProgram, size: number) => async () => {
      const results = await Promise.all(Array.from({ length: size }, () => sandbox.run(program)));
      if (results.some((result) => result.status !== 'completed')) throw new Error('a bench program did not complete');
      return size;
    };
    return [
      { name: 'first program (worker spawn + WASM load)', value: firstProgramMs, unit: 'ms' },
      await itemsPerSecond('webapi-style programs, one at a time', 'programs/s', batch(webapiProgram, 1)),
      await itemsPerSecond('webapi-style programs, 8 in flight, pool of 2', 'programs/s', batch(webapiProgram, 8)),
      await itemsPerSecond('stateful-style programs (5 host bindings), 8 in flight', 'programs/s', batch(statefulProgram, 8)),
    ];
  } finally {
    await sandbox.dispose();
  }
}

/** The same figures keyed by name, for callers that want a record. */
export async function benchSandbox(): Promise<Record<string, number | string>> {
  return Object.fromEntries((await bench()).map((figure) => [figure.name, `${figure.value.toFixed(1)} ${figure.unit}`]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const figure of await bench()) console.log(`${figure.name}: ${figure.value.toFixed(1)} ${figure.unit}`);
}
