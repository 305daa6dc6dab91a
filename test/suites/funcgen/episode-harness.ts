/**
 * Test support: one funcgen episode through the real pieces (agent + environment + scorer), without
 * the runner, for any LanguageModel.
 */
import { createGenericAgent } from '../../../src/agents/registry.ts';
import type { Mode } from '../../../src/core/mode.ts';
import type { Score } from '../../../src/core/score.ts';
import type { Task } from '../../../src/core/task.ts';
import type { AgentOutcome } from '../../../src/agents/spec.ts';
import type { AssistantMessage } from '../../../src/core/message.ts';
import type { GenerateResult, LanguageModel } from '../../../src/models/spec.ts';
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

/** A model that replays fixed assistant turns (raw, so argument text can be malformed); the last one repeats. */
export function replayingModel(turns: AssistantMessage[]): LanguageModel {
  let index = 0;
  return {
    specificationVersion: 'v1', provider: 'test', modelId: 'replaying',
    async generate(): Promise<GenerateResult> {
      const message = turns[Math.min(index, turns.length - 1)];
      index += 1;
      return { message, finishReason: message.toolCalls.length > 0 ? 'tool-calls' : 'stop', usage: { inputTokens: 0, outputTokens: 0 }, warnings: [], raw: { request: null, response: null } };
    },
  };
}
