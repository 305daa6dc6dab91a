/**
 * Every `toolforge <command> --flag` that the project tells a user to type (fix-it messages, help text, reports,
 * README files) names a command and flags the CLI has. A fix that names a command which does not exist sends the
 * user nowhere; this reads every such mention, so a renamed command or flag fails here.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { createProgram } from '../../src/cli/main.ts';
import { repositoryRoot } from '../../src/core/data-location.ts';

/** Words after "toolforge" that are prose, not a command ("the other toolforge command", "the toolforge tools"). */
const proseWords = new Set(['command', 'tools']);

function filesUnder(directory: string, keep: (name: string) => boolean): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The mentions in one text: "toolforge" then the words up to the end of the quoted or coded stretch. */
export function commandMentions(text: string): string[][] {
  const mentions: string[][] = [];
  for (const match of text.matchAll(/(?<![\w/.@-])toolforge ([a-z][^`'"#<>();\n]*)/g)) {
    mentions.push(match[1].replace(/\\n.*$/, '').trim().split(/\s+/).map((word) => word.replace(/[,.:;\\]+$/, '')));
  }
  return mentions;
}

/** The command the words name (descending into subcommands) and the flags among them. */
function problemsOf(program: Command, words: string[]): string | undefined {
  const [name, ...rest] = words;
  const top = program.commands.find((candidate) => candidate.name() === name);
  if (top === undefined) return proseWords.has(name) ? undefined : `no command '${name}'`;
  let command: Command = top;
  let index = 0;
  while (index < rest.length) {
    const sub: Command | undefined = command.commands.find((candidate) => candidate.name() === rest[index]);
    if (sub === undefined) break;
    command = sub;
    index += 1;
  }
  for (const word of rest.slice(index)) {
    const flag = /^(--[a-z][a-z-]*)/.exec(word)?.[1];
    if (flag === undefined || flag === '--help') continue;
    if (!command.options.some((option) => option.long === flag)) return `'${commandPath(command)}' has no ${flag}`;
  }
  return undefined;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

describe('commands the project tells a user to type', () => {
  const program = createProgram({ stdout: () => {}, stderr: () => {}, isStderrTty: false, env: {}, cwd: repositoryRoot });

  test('the check itself catches a command that does not exist and a flag a command lacks', () => {
    assert.equal(problemsOf(program, commandMentions('fix: rerun it with `toolforge resume <run-id>`')[0]), "no command 'resume'");
    assert.equal(problemsOf(program, commandMentions("fix: 'toolforge generate --suite stateful'")[0]), "'toolforge generate' has no --suite");
    assert.equal(problemsOf(program, commandMentions('`toolforge data fetch nestful --mirror <url>`')[0]), undefined);
    assert.equal(problemsOf(program, commandMentions('`toolforge data fetch nestful --bogus`')[0]), "'toolforge data fetch' has no --bogus");
    assert.equal(problemsOf(program, commandMentions('`toolforge run --resume ${runId}${database}\\n`')[0]), undefined);
  });

  test('every mention in src/ and the README files names a real command and real flags', () => {
    const files = [
      ...filesUnder(join(repositoryRoot, 'src'), (name) => name.endsWith('.ts') || name.endsWith('.md')),
      join(repositoryRoot, 'README.md'),
    ];
    const problems: string[] = [];
    let mentions = 0;
    for (const file of files) {
      for (const words of commandMentions(readFileSync(file, 'utf8'))) {
        mentions += 1;
        const problem = problemsOf(program, words);
        if (problem !== undefined) problems.push(`${relative(repositoryRoot, file)}: toolforge ${words.join(' ')}: ${problem}`);
      }
    }
    assert.ok(mentions > 100, `only ${mentions} mentions found: the pattern no longer matches how commands are written`);
    assert.deepEqual(problems, []);
  });
});
