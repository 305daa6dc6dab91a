/**
 * Every command starts by loading the CLI's static module graph. Packages only some commands need are imported on
 * first use, not from that graph: the MCP SDK cost each command ~95 ms to start and the OpenAPI parser ~60 ms. This
 * walks the static imports from src/cli/main.ts (type-only imports and `import()` left out, as Node loads them) and
 * names the chain that would bring one back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const lazyPackages = ['@modelcontextprotocol/sdk', '@readme/openapi-parser', 'openai', '@anthropic-ai/sdk', '@google/genai', 'pg'];

/** The module specifiers a TypeScript file loads when it is evaluated: `import x from`, `import 'x'`, `export ... from`. */
export function staticImports(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(/^(import|export)\s+(type\s+)?([^;]*?\sfrom\s+)?['"]([^'"]+)['"]/gms)) {
    if (match[2] !== undefined) continue;
    const clause = match[3] ?? '';
    // `import { type A, type B } from` loads nothing either.
    if (/^\s*\{[^}]*\}\s*from\s*$/s.test(clause) && clause.replace(/^\s*\{|\}\s*from\s*$/g, '').split(',').every((name) => name.trim() === '' || /^type\s/.test(name.trim()))) continue;
    specifiers.push(match[4] as string);
  }
  return specifiers;
}

/** Each package reached, with the chain of files from `entry` that imports it. */
function reachedPackages(entry: string): Map<string, string[]> {
  const parent = new Map<string, string | undefined>([[entry, undefined]]);
  const packages = new Map<string, string[]>();
  const chainTo = (file: string): string[] => {
    const chain: string[] = [];
    for (let at: string | undefined = file; at !== undefined; at = parent.get(at)) chain.unshift(relative(root, at));
    return chain;
  };
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        if (!parent.has(target)) {
          parent.set(target, file);
          queue.push(target);
        }
      } else if (!specifier.startsWith('node:')) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0] as string;
        if (!packages.has(name)) packages.set(name, chainTo(file));
      }
    }
  }
  return packages;
}

test('the static imports of a type-only clause, a side-effect import and a re-export are told apart', () => {
  assert.deepEqual(staticImports([
    "import type { A } from './a.ts';",
    "import { type B, type C } from './b.ts';",
    "import { type D, e } from './d.ts';",
    "import './side-effect.ts';",
    "export { f } from './f.ts';",
    "export type { G } from './g.ts';",
    "const lazy = await import('./lazy.ts');",
  ].join('\n')), ['./d.ts', './side-effect.ts', './f.ts']);
});

test('no command loads the MCP SDK, the OpenAPI parser, a vendor SDK or the PostgreSQL client at start-up', () => {
  const reached = reachedPackages(resolve(root, 'src/cli/main.ts'));
  // The walk itself works: packages every command needs are found.
  assert.ok(reached.has('commander') && reached.has('zod'), `expected commander and zod among ${[...reached.keys()].join(', ')}`);
  for (const name of lazyPackages) {
    const chain = reached.get(name);
    assert.equal(chain, undefined, `${name} is loaded at start-up through ${chain?.join(' > ')}: import it where it is first used (await import(...))`);
  }
});
