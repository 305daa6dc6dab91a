/** The generator/evaluator negotiation with scripted language models. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../../src/core/rng.ts';
import { emptyUsage } from '../../../src/core/usage.ts';
import type { GenerateRequest, LanguageModel } from '../../../src/models/spec.ts';
import { translateWithAgents } from '../../../src/suites/stateful/agent-translation.ts';
import { OccurrenceBook } from '../../../src/suites/stateful/occurrence-book.ts';
import { statefulScenarios } from '../../../src/suites/stateful/stateful-scenarios.ts';

function scripted(replies: string[], seen: string[] = []): LanguageModel {
  let index = 0;
  return {
    specificationVersion: 'v1', provider: 'builtin', modelId: 'scripted',
    async generate(request: GenerateRequest) {
      seen.push(request.messages.map((message) => ('content' in message ? message.content : '')).join('\n'));
      const content = replies[Math.min(index, replies.length - 1)];
      index += 1;
      return { message: { role: 'assistant', content, toolCalls: [] }, finishReason: 'stop', usage: emptyUsage, warnings: [], raw: { request: null, response: null } };
    },
  };
}

const program = statefulScenarios.voice.generateProgram({ calls: 5, branch: 'sampled', guidance: 'coverage' }, new Rng(4), new OccurrenceBook()).program;
const translation = '```json\n{"user_variable_definitions": "user_variable_0 holds a text.", "task_instructions": "Read it aloud and call someone."}\n```';

describe('agent translation (III-E)', () => {
  test('needs_revision feeds the diagnosis back; ok after round 2 keeps the translation', async () => {
    const generatorInputs: string[] = [];
    const result = await translateWithAgents(program, {
      generator: scripted(['not json', translation], generatorInputs),
      evaluator: scripted(['{"verdict":"needs_revision","diagnosis":"the branch is missing","suggestions":"describe the if"}', '{"verdict":"ok","diagnosis":"","suggestions":""}']),
    });
    // Round 1: malformed generator answer (no review); round 2: needs_revision; round 3: ok.
    assert.deepEqual(result, { verdict: 'ok', instruction: 'user_variable_0 holds a text.\n\nRead it aloud and call someone.', rounds: 3 });
    assert.match(generatorInputs[1], /not the requested JSON/);
    assert.match(generatorInputs[2], /the branch is missing/);
    assert.match(generatorInputs[0], new RegExp(program.body.split('\n')[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  });

  test('impossible stops at once; no ok within 3 rounds is not kept', async () => {
    assert.equal((await translateWithAgents(program, { generator: scripted([translation]), evaluator: scripted(['{"verdict":"impossible","diagnosis":"x"}']) })).verdict, 'impossible');
    const stuck = await translateWithAgents(program, { generator: scripted([translation]), evaluator: scripted(['{"verdict":"needs_revision","diagnosis":"again"}']) });
    assert.deepEqual(stuck, { verdict: 'not-converged', rounds: 3, diagnosis: 'no ok verdict within the round limit' });
  });
});
