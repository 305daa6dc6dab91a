#!/usr/bin/env node
// In a checkout the TypeScript sources run through tsx (a development dependency), so an edit needs no rebuild;
// an installed package has only the compiled dist/ and runs that.
import { existsSync } from 'node:fs';

// A reader that stops early (`toolforge report | head`) closes the pipe: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

async function loadMain() {
  const source = new URL('../src/cli/main.ts', import.meta.url);
  if (existsSync(source)) {
    let tsx;
    try {
      tsx = await import('tsx/esm/api');
    } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    }
    if (tsx) {
      tsx.register();
      return (await import(source.href)).main;
    }
  }
  return (await import('../dist/cli/main.js')).main;
}

const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));
