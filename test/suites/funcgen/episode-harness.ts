/**
 * Test support: one funcgen episode through the real pieces (agent + environment + scorer), without
 * the runner, for any LanguageModel.
 */
import { createGenericAgent } from '../../../src/agents/registry.ts';
import type { Mode } from '../../../src/core/mode.ts';
import type { Score } from '../../../src/core/score.ts';
import type { Task } from '../../../src/core/task.ts';
import type { AgentOutcome } from '../../../src/agents/spec.ts';
import type { LanguageModel } from '../../../src/models/spec.ts';
import type { FuncgenState } from '../../../src/suites/funcgen/environment.ts';
import { funcgenSuite } from '../../../src/suites/funcgen/index.ts';

export type EpisodeRun = { outcome: AgentOutcome; state: FuncgenState; score: Score };

export async function runFuncgenEpisode(task: Task, mode: Mode, model: LanguageModel): Promise<EpisodeRun> {
  const environment = await funcgenSuite.createEnvironment(task, mode);
  try {
    const outcome = await createGenericAgent(mode).run(task, {
      model, environment, limits: task.limits, settings: {}, signal: new AbortController().signal, emit: () => {},
      sandbox: () => { throw new Error('funcgen episodes run no programs'); },
    });
    const finalState = await environment.snapshotState();
    const score = await funcgenSuite.score({
      task, messages: outcome.messages, finalState, termination: outcome.termination, mode, calls: [], signal: new AbortController().signal,
      createEnvironment: () => funcgenSuite.createEnvironment(task, mode),
    });
    return { outcome, state: finalState as FuncgenState, score };
  } finally {
    await environment.dispose();
  }
}

export async function runBuiltinEpisode(task: Task, mode: Mode, builtin: string, trial = 0): Promise<EpisodeRun> {
  return runFuncgenEpisode(task, mode, funcgenSuite.builtinModels[builtin].create({ task, trial, mode }));
}
