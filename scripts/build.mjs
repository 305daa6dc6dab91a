// `npm run build` (also run by `prepare`, so `npm ci` and `npm pack` leave a fresh dist/): TypeScript to
// JavaScript + type declarations with tsc, then the plain-JavaScript assets tsc does not copy.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

rmSync('dist', { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
// The sandbox prelude runs inside QuickJS and is read as text at run time.
cpSync('src/sandbox/prelude', 'dist/sandbox/prelude', { recursive: true });
// Written last: bin/toolforge.js runs dist/ from a checkout only when this stamp is newer than every source,
// so an interrupted build is never run.
writeFileSync('dist/build-complete', '');
