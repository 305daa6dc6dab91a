/**
 * Built-in models for the stateful suite:
 * - oracle: answers with the reference program (it passes its own test cases: must score 100%);
 * - random: a plausible random program of as many valid calls as the reference makes (must score near 0).
 * In mode calls (voice) each makes, one per turn, the tool calls its program makes on the first test case (recorded
 * once per episode by running the program in a sandbox against a fresh lab), then answers with the program's RESULT.
 */
import type { JsonValue } from '../../core/json.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import { createScriptedModel } from '../../models/builtin/scripted-model.ts';
import type { EpisodeContext, LanguageModel } from '../../models/spec.ts';
import { createSandbox } from '../../sandbox/index.ts';
import type { BuiltinModel } from '../spec.ts';
import { statefulScenarios } from './stateful-scenarios.ts';
import { readStatefulExpected } from './stateful-task.ts';
import { recordVoiceCalls, type RecordedCalls } from './voice/voice-calls.ts';

function answerWith(episode: EpisodeContext, id: string, program: string): LanguageModel {
  if (episode.mode === 'calls') return callsOf(episode, id, program);
  return createScriptedModel({ modelId: id, mode: episode.mode, policy: () => ({ type: 'text', text: `\`\`\`javascript\n${program}\n\`\`\`` }) });
}

/** The program's calls on the first test case as native tool calls, then RESULT as a JSON answer. */
function callsOf(episode: EpisodeContext, id: string, program: string): LanguageModel {
  let scripted: Promise<LanguageModel> | undefined;
  const build = async (): Promise<LanguageModel> => {
    const sandbox = createSandbox({ poolSize: 1 });
    let recorded: RecordedCalls;
    try {
      recorded = await recordVoiceCalls(sandbox, readStatefulExpected(episode.task).testCases[0].initBlock, program);
    } finally {
      await sandbox.dispose();
    }
    const answer = `\`\`\`json\n${JSON.stringify(recorded.result satisfies JsonValue)}\n\`\`\``;
    return createScriptedModel({
      modelId: id, mode: episode.mode,
      policy: (state) => (state.history.length < recorded.calls.length ? { type: 'calls', calls: [recorded.calls[state.history.length]] } : { type: 'answer', text: answer }),
    });
  };
  return {
    specificationVersion: 'v1', provider: 'builtin', modelId: id,
    async generate(request) {
      scripted ??= build();
      return (await scripted).generate(request);
    },
  };
}

export const statefulBuiltinModels: Readonly<Record<string, BuiltinModel>> = {
  oracle: {
    description: 'Answers with the reference program (must score 100%); in mode calls, makes its calls and answers with its RESULT.',
    create: (episode) => answerWith(episode, 'oracle', readStatefulExpected(episode.task).program.body),
  },
  random: {
    description: 'Makes as many valid API calls as the reference, drawn at random (must score near 0).',
    create(episode) {
      const expected = readStatefulExpected(episode.task);
      const rng = new Rng(deriveSeed(episode.task.seed, 'stateful-random', episode.task.id, episode.trial));
      return answerWith(episode, 'random', statefulScenarios[expected.scenario].randomProgramBody(expected.program, rng));
    },
  },
};
