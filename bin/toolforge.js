#!/usr/bin/env node
// An installed package has only the compiled dist/ and runs that; a checkout runs dist/ too while it is up to
// date, else its TypeScript sources through tsx (a development dependency).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A reader that stops early (`toolforge report | head`) closes the pipe: that is the reader's choice, not an error.
// Any other failed write (a full disk behind `> file`) is raised by the command's next write, with its cause and fix
// (src/cli/cli-io.ts), rather than as an unhandled 'error' event.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
}

/** The newest modification time of any file under `directory` (a checkout's src/). */
function newestFile(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestFile(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * dist/ when it is complete and newer than every source (npm ci builds it): the built package starts faster and
 * its sandbox workers do not each load tsx (about 95 MB of peak RSS in a hostile webapi run). Otherwise, after an
 * edit or with TOOLFORGE_FROM_SOURCE=1, the sources run through tsx, so an edit needs no rebuild.
 */
function builtIsCurrent(sourceDirectory) {
  if (process.env.TOOLFORGE_FROM_SOURCE === '1') return false;
  let built;
  try {
    built = statSync(fileURLToPath(new URL('../dist/build-complete', import.meta.url))).mtimeMs;
  } catch {
    return false;
  }
  return built >= newestFile(sourceDirectory);
}

async function loadMain() {
  const source = new URL('../src/cli/main.ts', import.meta.url);
  if (existsSync(source) && !builtIsCurrent(fileURLToPath(new URL('../src', import.meta.url)))) {
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
