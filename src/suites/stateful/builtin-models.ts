/**
 * Built-in models for the stateful suite:
 * - oracle: answers with the reference program (it passes its own test cases: must score 100%);
 * - random: a plausible random program of as many valid calls as the reference makes (must score near 0).
 */
import { deriveSeed, Rng } from '../../core/rng.ts';
import { createScriptedModel } from '../../models/builtin/scripted-model.ts';
import type { EpisodeContext, LanguageModel } from '../../models/spec.ts';
import type { BuiltinModel } from '../spec.ts';
import { statefulScenarios } from './stateful-scenarios.ts';
import { readStatefulExpected } from './stateful-task.ts';

function answerWith(episode: EpisodeContext, id: string, program: string): LanguageModel {
  return createScriptedModel({ modelId: id, mode: episode.mode, policy: () => ({ type: 'text', text: `\`\`\`javascript\n${program}\n\`\`\`` }) });
}

export const statefulBuiltinModels: Readonly<Record<string, BuiltinModel>> = {
  oracle: {
    description: 'Answers with the reference program (must score 100%).',
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
