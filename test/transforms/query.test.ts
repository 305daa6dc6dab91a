import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolForgeError } from '../../src/core/errors.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { replaceQuery } from '../../src/transforms/query.ts';
import { counterSuite } from '../fixtures/counter-suite.ts';

test('replaceQuery rewrites the request inside the prompt and leaves the scaffolding byte-identical', async () => {
  for (const suite of [getSuite('funcgen'), getSuite('nestful'), counterSuite]) {
    const [task] = await generateTasks(suite, { seed: 2, count: 1, params: resolveKnobs(suite.id, suite.knobs, {}), validate: false });
    const query = task.query as string;
    const rewritten = replaceQuery(task, 'PLEASE DO THE THING');
    assert.equal(rewritten.query, 'PLEASE DO THE THING');
    const before = task.prompt.map((message) => message.content).join('\n');
    const after = rewritten.prompt.map((message) => message.content).join('\n');
    assert.ok(after.includes('PLEASE DO THE THING'), suite.id);
    assert.equal(after.split('PLEASE DO THE THING').join(query), before, suite.id);
    assert.deepEqual({ ...rewritten, prompt: task.prompt, query }, task);
  }
  const [task] = await counterSuite.generate({ seed: 1, count: 1, params: { max: 60 } });
  assert.throws(() => replaceQuery({ ...task, query: undefined }, 'x'), (error: unknown) => error instanceof ToolForgeError && error.code === 'suite.invalid-task');
  assert.throws(() => replaceQuery({ ...task, query: 'not in the prompt' }, 'x'), (error: unknown) => error instanceof ToolForgeError && /does not appear/.test(error.message));
});
