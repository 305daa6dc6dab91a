/**
 * Mode `code`: one model turn that answers with a program; the environment's bindings() say how to
 * cut the program out of the answer and what it may call. The program runs in the runner's sandbox
 * (AgentContext.sandbox), the environment is told what ran, and the episode ends. The model is
 * called once: a sandbox crash (SandboxError) re-runs the program, up to `programAttempts` times,
 * and past that the episode is an infrastructure error that is not retried by re-asking the model.
 */
import type { Message } from '../core/message.ts';
import { ToolForgeError, SandboxError, errorMessage } from '../core/errors.ts';
import type { ExtractedProgram, OpenedVariant, ProgramHost, ProgramRun, ProgramVariant, VariantRun } from '../core/program-host.ts';
import type { ProgramResult } from '../core/program.ts';
import type { Task } from '../core/task.ts';
import { emptyUsage } from '../core/usage.ts';
import type { GenerateRequest } from '../models/spec.ts';
import type { Agent, AgentContext, AgentOutcome } from './spec.ts';
import type { EpisodeBudget } from './episode-budget.ts';
import { startEpisodeBudget } from './episode-budget.ts';
import { takeModelTurn } from './model-turn.ts';

export const programAttempts = 3;

export type CodeAgentOptions = {
  id?: string;
  /** Adjusts the model request (e.g. a completion-style continuation with a stop sequence). */
  request?(task: Task, request: Omit<GenerateRequest, 'signal'>): Omit<GenerateRequest, 'signal'>;
  /** The answer as the program extraction sees it (e.g. starter + continuation); default the message content. */
  answer?(task: Task, content: string): string;
};

export function createCodeAgent(options: CodeAgentOptions = {}): Agent {
  return {
    id: options.id ?? 'code',
    mode: 'code',
    async run(task: Task, context: AgentContext): Promise<AgentOutcome> {
      const budget = startEpisodeBudget(context.limits, context.signal, context.clock);
      const messages: Message[] = [...task.prompt];
      try {
        const base: Omit<GenerateRequest, 'signal'> = { messages: [...messages], tools: [], toolChoice: 'none', settings: context.settings };
        const turn = await takeModelTurn(context, budget, 0, options.request ? options.request(task, base) : base);
        if (turn.type === 'stopped') return { termination: turn.termination, messages, usage: emptyUsage };
        const { result } = turn;
        const content = options.answer ? options.answer(task, result.message.content) : result.message.content;
        messages.push({ ...result.message, content, toolCalls: [] });
        const outcome = (termination: AgentOutcome['termination']): AgentOutcome => ({ termination, messages, usage: result.usage });
        const host = context.environment.bindings?.();
        if (!host) {
          throw new ToolForgeError('internal', `task '${task.id}': mode code needs an environment with bindings(), and this one has none`, {
            fix: `give suite ${task.suite.id}'s environment a bindings() (see src/core/program-host.ts)`,
          });
        }
        const run = await runProgram(host, content, context, budget);
        host.observe?.(run);
        const stopped = run.result === null ? budget.stopReason() : undefined;
        // A filtered answer still has its program run (what it did is scored), as in every code suite.
        return outcome(stopped ?? (result.finishReason === 'content-filter' ? 'content-filter' : 'final-answer'));
      } finally {
        budget.dispose();
      }
    },
  };
}

/**
 * The program in `answer` run as a code episode runs it: once, or once per variant (ProgramHost.variants), a
 * sandbox crash re-running it up to `programAttempts` times. Also what an MCP client's `run_program` does.
 */
export async function runProgram(host: ProgramHost, answer: string, context: AgentContext, budget: EpisodeBudget): Promise<ProgramRun> {
  const extraction = host.extractProgram(answer);
  if (extraction.type !== 'program') return { extraction, result: null, attempts: 0 };
  if (host.variants) return runVariants(host, host.variants, extraction, context, budget);
  for (let attempt = 1; ; attempt += 1) {
    if (budget.stopReason()) return { extraction, result: null, attempts: attempt - 1 };
    let result: ProgramResult;
    try {
      result = await context.sandbox().run({
        code: extraction.code,
        bindings: host.functions,
        ...(host.http ? { http: host.http } : {}),
        ...(host.timeLimitMs !== undefined ? { limits: { timeLimitMs: host.timeLimitMs } } : {}),
      }, { signal: budget.signal });
    } catch (error) {
      if (budget.stopReason()) return { extraction, result: null, attempts: attempt };
      if (!(error instanceof SandboxError)) throw error;
      if (attempt >= programAttempts) {
        // Not a SandboxError: the runner must not retry the episode (that would call the model again).
        throw new ToolForgeError('sandbox.crashed', `the sandbox crashed ${attempt} times running one program: ${errorMessage(error)}`, {
          fix: 'resume the run to retry this episode; if it persists, report it', cause: error,
        });
      }
      continue;
    }
    return { extraction, result, attempts: attempt };
  }
}

/** The program once per variant, in order, each in the fresh world the variant opens (closed after every attempt). */
async function runVariants(host: ProgramHost, variants: readonly ProgramVariant[], extraction: ExtractedProgram & { type: 'program' }, context: AgentContext, budget: EpisodeBudget): Promise<ProgramRun> {
  const runs: VariantRun[] = [];
  for (const variant of variants) {
    let run: VariantRun = { label: variant.label, result: null, attempts: 0 };
    for (let attempt = 1; !budget.stopReason(); attempt += 1) {
      const world: OpenedVariant = await variant.open();
      let result: ProgramResult | null = null;
      try {
        result = await context.sandbox().run({
          code: world.code(extraction.code),
          bindings: { ...host.functions, ...world.functions },
          ...(world.http ?? host.http ? { http: world.http ?? host.http } : {}),
          ...(host.timeLimitMs !== undefined ? { limits: { timeLimitMs: host.timeLimitMs } } : {}),
        }, { signal: budget.signal });
      } catch (error) {
        await world.close(null);
        run = { label: variant.label, result: null, attempts: attempt };
        if (budget.stopReason()) break;
        if (!(error instanceof SandboxError)) throw error;
        if (attempt >= programAttempts) {
          throw new ToolForgeError('sandbox.crashed', `the sandbox crashed ${attempt} times running one program (${variant.label}): ${errorMessage(error)}`, {
            fix: 'resume the run to retry this episode; if it persists, report it', cause: error,
          });
        }
        continue;
      }
      await world.close(result);
      run = { label: variant.label, result, attempts: attempt };
      break;
    }
    runs.push(run);
  }
  return {
    extraction,
    result: runs.at(-1)?.result ?? null,
    attempts: runs.reduce((sum, run) => sum + run.attempts, 0),
    variants: runs,
  };
}
