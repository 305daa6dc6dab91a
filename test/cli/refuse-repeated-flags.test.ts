/**
 * Every flag of every command that takes one value is refused when given twice (commander keeps the last silently:
 * `--mode react --mode calls` ran in calls mode). The flags meant to repeat are exactly the listed ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommanderError, type Command, type Option } from 'commander';
import { createProgram } from '../../src/cli/main.ts';
import { isRepeatable } from '../../src/cli/option-parsers.ts';

/** `<command path> <flag>` of the flags a user may give more than once. */
const repeatableFlags = new Set([
  'generate --set', 'generate --transform', 'run --set', 'run --transform', 'run --task-id', 'serve --set', 'serve --transform',
  'sweep --grid', 'sweep --model', 'sweep --set', 'sweep --transform',
]);

function* commandsUnder(command: Command, path: string[] = []): Generator<{ command: Command; path: string[] }> {
  for (const sub of command.commands) {
    const subPath = [...path, sub.name()];
    yield { command: sub, path: subPath };
    yield* commandsUnder(sub, subPath);
  }
}

/** A value the flag takes when given once. */
function validValue(option: Option): string {
  if (option.argChoices !== undefined) return option.argChoices[0];
  for (const candidate of ['1', 'http://127.0.0.1:9/v1', 'x=1', 'funcgen-20260101-000000-ab12', 'a']) {
    try {
      option.parseArg?.(candidate, undefined);
      return candidate;
    } catch {
      // Not this one.
    }
  }
  throw new Error(`no test value for ${option.flags}`);
}

function fresh(): { program: Command; stderr: () => string } {
  let stderr = '';
  const program = createProgram({ stdout: () => {}, stderr: (text) => { stderr += text; }, isStderrTty: false, env: {}, cwd: '/nonexistent' });
  // No action may run: a flag the check missed must fail this test, not start a server.
  for (const { command } of commandsUnder(program)) command.action(() => { throw new Error('the command ran'); });
  return { program, stderr: () => stderr };
}

test('a flag with one value, given twice, is refused on every command; the repeatable ones are the listed ones', async () => {
  const foundRepeatable = new Set<string>();
  let checked = 0;
  for (const { command, path } of commandsUnder(fresh().program)) {
    for (const option of command.options as readonly Option[]) {
      if (option.isBoolean() || option.long === undefined) continue;
      const name = `${path.join(' ')} ${option.long}`;
      if (option.parseArg !== undefined && isRepeatable(option.parseArg)) {
        foundRepeatable.add(name);
        continue;
      }
      const value = validValue(option);
      const { program, stderr } = fresh();
      const error = await program.parseAsync([...path, option.long, value, option.long, value], { from: 'user' }).then(() => undefined, (caught: unknown) => caught);
      assert.ok(error instanceof CommanderError, `${name}: ${String(error)}`);
      assert.equal(error.code, 'commander.optionGivenTwice', `${name}: ${stderr()}`);
      assert.match(stderr(), new RegExp(`${option.long} was given twice; pass it once`), name);
      assert.match(stderr(), /\n {2}fix: see 'toolforge .* --help'/, name);
      checked += 1;
    }
  }
  assert.ok(checked > 80, `only ${checked} flags checked`);
  assert.deepEqual([...foundRepeatable].sort(), [...repeatableFlags].sort());
});

test('a knob set twice is refused, naming both values; different knobs and a grid of several values are not', async () => {
  const twice = fresh();
  const error = await twice.program.parseAsync(['run', 'funcgen', '--set', 'core=4', '--set', 'core=5'], { from: 'user' }).then(() => undefined, (caught: unknown) => caught);
  assert.ok(error instanceof CommanderError);
  assert.match(twice.stderr(), /--set core was given twice \(4, then 5\); set it once/);
  const fine = fresh();
  const ran = await fine.program.parseAsync(['sweep', 'funcgen', '--set', 'core=4', '--set', 'depth=2', '--grid', 'connected=1,2', '--model', 'a', '--model', 'b'], { from: 'user' }).then(() => undefined, (caught: unknown) => caught);
  assert.match(String(ran), /the command ran/, fine.stderr());
});
