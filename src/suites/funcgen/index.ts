/**
 * funcgen — FuncBenchGen (shared/papers/funcbenchgen.txt): reach a target variable by calling the
 * functions of a hidden dependency DAG, multi-turn; judged on the final value, with every call
 * classified by the paper's failure taxonomy. See README.md.
 */
import type { Mode } from '../../core/mode.ts';
import { ConfigError } from '../../core/errors.ts';
import { createScriptedModel } from '../../models/builtin/scripted-model.ts';
import type { Suite } from '../spec.ts';
import { FuncgenEnvironment } from './environment.ts';
import { funcgenExpectedSchema, readFuncgenTask } from './funcgen-task.ts';
import { funcgenKnobs, parseFuncgenParams } from './knobs.ts';
import { createOraclePolicy } from './oracle-policy.ts';
import { createPlannerPolicy } from './planner-policy.ts';
import { createRandomPolicy } from './random-policy.ts';
import { scoreFuncgen } from './scorer.ts';
import { summarizeFuncgen } from './summary.ts';
import { funcgenSuiteId, funcgenVersion, generateFuncgenTask } from './task-generator.ts';

const funcgenModes: readonly Mode[] = ['calls', 'react'];

function checkMode(mode: Mode): void {
  if (!funcgenModes.includes(mode)) {
    throw new ConfigError('config.unsupported-mode', `suite 'funcgen' does not support mode '${mode}'`, {
      fix: `use --mode ${funcgenModes.join(' or --mode ')}`,
    });
  }
}

export const funcgenSuite: Suite = {
  id: funcgenSuiteId,
  version: funcgenVersion,
  expectedSchema: funcgenExpectedSchema,
  title: 'FuncBenchGen: multi-step calls over a hidden function dependency graph',
  description: 'Reach a target variable by calling functions linked by type and subtype; irrelevant connected and disconnected functions distract. Success rate, average calls, and per-call failure types.',
  paper: 'funcbenchgen.txt',
  knobs: funcgenKnobs,
  modes: funcgenModes,
  defaultCount: 50,
  async generate(request) {
    const params = parseFuncgenParams(request.params);
    const count = request.count ?? funcgenSuite.defaultCount;
    return Array.from({ length: count }, (_, index) => {
      request.signal?.throwIfAborted();
      return generateFuncgenTask({ seed: request.seed, index, params });
    });
  },
  async createEnvironment(task, mode) {
    checkMode(mode);
    return new FuncgenEnvironment(readFuncgenTask(task), task.tools);
  },
  async score(input) {
    return scoreFuncgen(input);
  },
  summarize: summarizeFuncgen,
  builtinModels: {
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
  },
};
