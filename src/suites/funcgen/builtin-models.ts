/** funcgen's built-in models: scripted policies that speak the same protocols a real model does. */
import { createScriptedModel } from '../../models/builtin/scripted-model.ts';
import type { BuiltinModel } from '../spec.ts';
import { defaultSlipProbability, createNoisyPolicy, parseNoisyParameters } from './noisy-policy.ts';
import { createOraclePolicy } from './oracle-policy.ts';
import { createPlannerPolicy } from './planner-policy.ts';
import { createRandomPolicy } from './random-policy.ts';

function noisyModel(slipProbability: number): BuiltinModel {
  return {
    description: `the planner, but each value passed from one call's output to another is wrong with probability p (default ${defaultSlipProbability}; builtin/noisy?p=0.3); accuracy falls with core and depth`,
    create: (episode) => createScriptedModel({ modelId: 'noisy', mode: episode.mode, policy: createNoisyPolicy(episode.task, episode.trial, slipProbability) }),
    configure: (parameters) => noisyModel(parseNoisyParameters(parameters).slipProbability),
  };
}

export const funcgenBuiltinModels: Readonly<Record<string, BuiltinModel>> = {
  oracle: {
    description: 'calls the minimal core functions in topological order with the right values, then answers (must pass 100%)',
    create: (episode) => createScriptedModel({ modelId: 'oracle', mode: episode.mode, policy: createOraclePolicy(episode.task) }),
  },
  planner: {
    description: 'backward chaining over the tool descriptions\' types and subtypes from the prompt\'s target (visible information only)',
    create: (episode) => createScriptedModel({ modelId: 'planner', mode: episode.mode, policy: createPlannerPolicy(episode.task) }),
  },
  random: {
    description: 'random calls to listed functions with seen or random 3-digit values, then a random answer (near 0%)',
    create: (episode) => createScriptedModel({ modelId: 'random', mode: episode.mode, policy: createRandomPolicy(episode.task, episode.trial) }),
  },
  noisy: noisyModel(defaultSlipProbability),
};
