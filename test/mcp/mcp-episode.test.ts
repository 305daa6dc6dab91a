import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentContext } from '../../src/agents/spec.ts';
import type { Environment } from '../../src/core/environment.ts';
import { McpEpisode, runProgramTool, submitAnswerTool } from '../../src/mcp/mcp-episode.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';

function context(environment: Environment): AgentContext {
  return {
    model: undefined as never, environment, limits: { maxTurns: 10, maxToolCalls: 10, timeLimitMs: 60_000 }, settings: {},
    signal: new AbortController().signal, sandbox: () => { throw new Error('no sandbox here'); }, emit: () => {},
  };
}

test('submit_answer or run_program without its argument is refused as a malformed call; the episode goes on', async () => {
  const suite = getSuite('funcgen');
  const [task] = await generateTasks(suite, { seed: 1, count: 1, params: resolveKnobs(suite.id, suite.knobs, {}), validate: false });
  const environment = await suite.createEnvironment(task, 'calls');
  try {
    const episode = new McpEpisode(task, 'calls', context(environment));
    const refused = await episode.call(submitAnswerTool, {});
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused), /submit_answer needs \{\\+"answer\\+": \\+"<your final answer>\\+"\}; nothing was recorded and the episode goes on/);
    const last = episode.messages.at(-1);
    assert.deepEqual(last?.role === 'tool' ? [last.toolName, last.result] : last, [submitAnswerTool,
      { ok: false, error: { code: 'arguments.invalid', message: `${submitAnswerTool} needs {"answer": "<your final answer>"}; nothing was recorded and the episode goes on` } }]);
    assert.equal(episode.isOver, false);
    // The answer, given properly, still ends the episode.
    const accepted = await episode.call(submitAnswerTool, { answer: '42' });
    assert.notEqual(accepted.isError, true);
    const outcome = await episode.outcome;
    assert.equal(outcome.termination, 'final-answer');
    assert.deepEqual(outcome.messages.at(-1), { role: 'assistant', content: '42', toolCalls: [] });
    // In code mode, run_program without a program runs nothing and ends nothing.
    const code = new McpEpisode(task, 'code', context(environment));
    const noProgram = await code.call(runProgramTool, { code: 'x' });
    assert.equal(noProgram.isError, true);
    assert.match(JSON.stringify(noProgram), /run_program needs \{\\+"program\\+": \\+"<your program>\\+"\}; nothing ran and the episode goes on/);
    assert.equal(code.isOver, false);
  } finally {
    await environment.dispose();
  }
});
