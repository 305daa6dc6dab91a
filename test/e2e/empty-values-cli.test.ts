/** An empty value where a path, URL, command or knob value goes (an unset shell variable) is refused, naming it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, temporaryDirectory } from './run-cli.ts';

test('empty --db, --out, --tasks, --agent-command, file argument and --set knob values exit 2 naming the flag', async () => {
  const cwd = temporaryDirectory();
  const cases: [string[], RegExp][] = [
    [['runs', '--db', ''], /^error: --db is empty\n {2}fix: pass --db <file>, or leave it out\n$/],
    [['run', 'funcgen', '--model', 'builtin/oracle', '--count', '1', '--db', ''], /^error: --db is empty/],
    [['generate', 'funcgen', '--count', '1', '--out', ''], /^error: --out is empty\n {2}fix: pass --out <file>, or leave it out/],
    [['run', '--model', 'builtin/oracle', '--tasks', ''], /^error: --tasks is empty/],
    [['report', '--out', ''], /^error: --out is empty/],
    [['import', ''], /^error: the <file> argument is empty/],
    [['run', 'funcgen', '--model', 'builtin/oracle', '--agent-command', ''], /^error: --agent-command is empty/],
    [['run', 'nestful', '--model', 'builtin/oracle', '--count', '1', '--set', 'data='], /^error: suite 'nestful' knob 'data' is empty\n {2}fix: give data a value \(--set data=<value>\), or leave it out for its default \(unset\)/],
    [['sweep', 'nestful', '--model', 'builtin/oracle', '--grid', 'calls=3,4', '--set', 'data= '], /knob 'data' is empty/],
  ];
  for (const [args, pattern] of cases) {
    const result = await runCli(args, { cwd });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, pattern, args.join(' '));
  }
});
