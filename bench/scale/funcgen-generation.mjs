// Bench child: funcgen task generation (core=10, connected=5, disconnected=5; no oracle validation) with the built
// package (dist/index.js, what `toolforge generate` runs), 50 tasks a call, repeated for at least 3 s after a warm-up
// call. Prints one JSON line: tasks, seconds.
// Usage: funcgen-generation.mjs <entry>
import { pathToFileURL } from 'node:url';

const { getSuite, resolveKnobs } = await import(pathToFileURL(process.argv[2]).href);
const suite = getSuite('funcgen');
const params = resolveKnobs(suite.id, suite.knobs, { core: '10', connected: '5', disconnected: '5' });
let seed = 0;
const generate = async () => (await suite.generate({ seed: ++seed, count: 50, params })).length;
await generate();
let tasks = 0;
const start = performance.now();
while (performance.now() - start < 3000) tasks += await generate();
console.log(JSON.stringify({ tasks, seconds: (performance.now() - start) / 1000 }));
