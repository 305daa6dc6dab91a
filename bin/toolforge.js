#!/usr/bin/env node
// The package ships TypeScript sources; tsx's loader runs them without a build step.
import { register } from 'tsx/esm/api';
// A reader that stops early (`toolforge report | head`) closes the pipe: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
