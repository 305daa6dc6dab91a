/**
 * One episode as an MCP client sees it: the task's tools (or `run_program` in code mode) backed by the
 * episode's environment, and `submit_answer`. Every call the client makes becomes a transcript message
 * (an assistant turn with one tool call, then its result), so a stored MCP episode reads like any other
 * and the suite scores it unchanged. The episode ends when the client submits an answer (or, in code
 * mode, runs its program), or when the tool-call limit is reached; a disconnect or a timeout is an
 * infrastructure error (`fail`), never scored. Given `untilStored`, the call that ends the episode is answered only
 * once the episode is in the results store, so an acknowledged answer survives the process being killed.
 */
import { runProgram as runAnswerProgram } from '../agents/code.ts';
import { startEpisodeBudget } from '../agents/episode-budget.ts';
import type { AgentContext } from '../agents/spec.ts';
import type { JsonObject } from '../core/json.ts';
import type { Message } from '../core/message.ts';
import { renderToolResult } from '../core/message.ts';
import type { Mode } from '../core/mode.ts';
import type { ProgramRun } from '../core/program-host.ts';
import { ToolForgeError } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { Termination } from '../core/termination.ts';
import { createToolCall, distinctToolsByName } from '../core/tool.ts';
import type { ToolResult, ToolSpec } from '../core/tool.ts';
import type { EpisodeStorage } from './episode-commits.ts';

export const submitAnswerTool = 'submit_answer';
export const runProgramTool = 'run_program';

export type McpEpisodeOutcome = { termination: Termination; messages: Message[] };

/** What an MCP tools/call answers: text content, `isError` for a tool error the client should recover from. */
export type McpToolAnswer = { content: { type: 'text'; text: string }[]; isError?: boolean };

/**
 * How long the answer that ends an episode waits for the episode to be stored: scoring plus the group commit's window
 * is well under a second, but a suite whose scorer asks a model (a judge) can take longer, and MCP clients give up on a
 * request after 60 s (the SDK's default). Past it the client is told the answer is not stored yet.
 */
export const storedWaitMs = 30_000;

export type McpEpisodeOptions = {
  /** The episode's trial (from 0), when known: with the task, what the store keys it by. */
  trial?: number;
  /** Settles once the ended episode is in the results store (serve); without it, an ending is answered at once. */
  untilStored?: () => Promise<EpisodeStorage>;
};

export class McpEpisode {
  readonly messages: Message[];
  readonly outcome: Promise<McpEpisodeOutcome>;
  readonly trial: number | undefined;
  private ended = false;
  private ending: { by: 'client' | 'runner'; how: string } | undefined;
  private toolCalls = 0;
  private resolveOutcome: (outcome: McpEpisodeOutcome) => void = () => {};
  private rejectOutcome: (error: Error) => void = () => {};

  constructor(readonly task: Task, readonly mode: Mode, private readonly context: AgentContext, private readonly options: McpEpisodeOptions = {}) {
    this.trial = options.trial;
    this.messages = [...task.prompt];
    this.outcome = new Promise<McpEpisodeOutcome>((resolve, reject) => {
      this.resolveOutcome = resolve;
      this.rejectOutcome = reject;
    });
    // Handled by whoever awaits it; this keeps a failure before that from going unhandled.
    this.outcome.catch(() => {});
  }

  get isOver(): boolean {
    return this.ended;
  }

  /**
   * How the episode ended ("its answer was submitted"), and whether a call of the client ended it ('client': the answer
   * to that call says what comes next) or the runner did (a timeout, a disconnect); undefined while it is open.
   */
  get endedHow(): { by: 'client' | 'runner'; how: string } | undefined {
    return this.ending;
  }

  /** The tools offered over MCP: the task's (as it was told about them) or run_program, then submit_answer. */
  tools(): ToolSpec[] {
    if (this.mode === 'code') {
      return [{
        name: runProgramTool,
        description: 'Run your program against the task\'s API in the sandbox and end the episode. `program` is your answer as the task asks for it (e.g. a fenced code block, or the continuation of the starter code).',
        inputSchema: { type: 'object', properties: { program: { type: 'string' } }, required: ['program'] },
      }];
    }
    return [...distinctToolsByName(this.task.tools), {
      name: submitAnswerTool,
      description: 'Give your final answer and end the episode. Call it once, after the tool calls you need.',
      inputSchema: { type: 'object', properties: { answer: { type: 'string', description: 'your final answer' } }, required: ['answer'] },
    }];
  }

  async call(name: string, args: JsonObject | undefined): Promise<McpToolAnswer> {
    if (this.ended) return errorAnswer('episode.over', `the episode of task '${this.task.id}' has ended (${this.ending?.how ?? 'it is over'}); nothing was done or recorded`);
    if (this.mode === 'code') {
      if (name !== runProgramTool) return errorAnswer('tool.unknown', `unknown tool '${name}' (code-mode tasks offer only ${runProgramTool})`);
      // A call without its one argument is a malformed call, answered as the task's tools answer one: the episode goes on.
      if (typeof args?.program !== 'string') return this.refuseMalformed(name, args, `${runProgramTool} needs {"program": "<your program>"}; nothing ran and the episode goes on`);
      return this.runProgram(args.program);
    }
    if (name === submitAnswerTool) {
      if (args?.answer === undefined) return this.refuseMalformed(name, args, `${submitAnswerTool} needs {"answer": "<your final answer>"}; nothing was recorded and the episode goes on`);
      const answer = typeof args.answer === 'string' ? args.answer : JSON.stringify(args.answer);
      this.finish('final-answer', answer, { by: 'client', how: 'its answer was submitted' });
      const storage = await this.untilStored();
      return textAnswer(storage === undefined ? 'answer recorded; the episode is over'
        : storage.stored && storage.status === 'scored' ? 'answer recorded and stored; the episode is over'
          : `answer recorded; the episode is over. ${notStoredText(storage)}`);
    }
    if (this.toolCalls >= this.context.limits.maxToolCalls) {
      const limit = this.context.limits.maxToolCalls;
      this.finish('max-tool-calls', '', { by: 'client', how: `it reached its limit of ${limit} tool calls` });
      return withStorage(errorAnswer('limit.exceeded', `the episode's limit of ${limit} tool calls is reached; the episode is over`), await this.untilStored());
    }
    this.toolCalls += 1;
    const argumentsText = JSON.stringify(args ?? {});
    const call = createToolCall(`mcp_${this.toolCalls}`, name, argumentsText);
    this.messages.push({ role: 'assistant', content: '', toolCalls: [call] });
    const result: ToolResult = await this.context.environment.callTool(call, { signal: this.context.signal });
    this.messages.push({ role: 'tool', toolCallId: call.id, toolName: name, result });
    return result.ok ? textAnswer(renderToolResult(result)) : { ...textAnswer(renderToolResult(result)), isError: true };
  }

  /** A call of ours without its required argument: kept in the transcript with its error, and told to the client. */
  private refuseMalformed(name: string, args: JsonObject | undefined, message: string): McpToolAnswer {
    const call = createToolCall(`mcp_${this.toolCalls + 1}_${this.messages.length}`, name, JSON.stringify(args ?? {}));
    const result: ToolResult = { ok: false, error: { code: 'arguments.invalid', message } };
    this.messages.push({ role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, toolName: name, result });
    return errorAnswer('arguments.invalid', message);
  }

  /** The agent stopped without submitting an answer (it exited cleanly): scored as an episode without an answer. */
  endWithoutAnswer(): void {
    this.finish('final-answer', '', { by: 'runner', how: 'the agent stopped without an answer' });
  }

  /** The client went away or ran out of time: infrastructure, never scored. */
  fail(error: ToolForgeError): void {
    if (this.ended) return;
    this.ended = true;
    this.ending = { by: 'runner', how: `it failed: ${error.code}; not scored, resuming the run serves it again` };
    this.rejectOutcome(error);
  }

  private finish(termination: Termination, answer: string, ending: { by: 'client' | 'runner'; how: string }): void {
    if (this.ended) return;
    this.ended = true;
    this.ending = ending;
    this.messages.push({ role: 'assistant', content: answer, toolCalls: [] });
    this.resolveOutcome({ termination, messages: this.messages });
  }

  /** Waits (bounded) until the ended episode is stored; undefined when nothing tells this episode that (no store is watched). */
  private async untilStored(): Promise<EpisodeStorage | undefined> {
    if (!this.options.untilStored) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<EpisodeStorage>((resolve) => { timer = setTimeout(() => resolve({ stored: false, why: 'slow' }), storedWaitMs); });
    try {
      return await Promise.race([this.options.untilStored(), slow]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Code mode: the program runs as the code agent runs a model's answer (once, or once per test case when the
   * environment has variants; a sandbox crash re-runs it); the episode then ends.
   */
  private async runProgram(answer: string): Promise<McpToolAnswer> {
    const host = this.context.environment.bindings?.();
    if (!host) {
      throw new ToolForgeError('internal', `task '${this.task.id}': mode code needs an environment with bindings(), and this one has none`, {
        fix: `give suite ${this.task.suite.id}'s environment a bindings() (see src/core/program-host.ts)`,
      });
    }
    this.messages.push({ role: 'assistant', content: answer, toolCalls: [] });
    const budget = startEpisodeBudget(this.context.limits, this.context.signal, this.context.clock);
    let run: ProgramRun;
    let stopped: Termination | undefined;
    try {
      run = await runAnswerProgram(host, answer, this.context, budget);
      stopped = run.result === null ? budget.stopReason() : undefined;
    } catch (error) {
      this.fail(error instanceof ToolForgeError ? error : new ToolForgeError('sandbox.crashed', String(error)));
      throw error;
    } finally {
      budget.dispose();
    }
    host.observe?.(run);
    this.ended = true;
    this.ending = { by: 'client', how: 'its program ran' };
    this.resolveOutcome({ termination: stopped ?? 'final-answer', messages: this.messages });
    const { extraction } = run;
    const summary = extraction.type !== 'program' ? { ran: false, reason: extraction.reason }
      : run.variants ? { ran: true, runs: run.variants.map((variant) => ({ label: variant.label, result: variant.result })) }
        : { ran: true, result: run.result };
    return withStorage(textAnswer(JSON.stringify(summary)), await this.untilStored());
  }
}

/** What the client is told when the episode its call ended is not (yet) stored as scored. */
function notStoredText(storage: EpisodeStorage): string {
  if (storage.stored) {
    return `It could not be scored (${storage.errorCode ?? storage.status}): it is stored as an infrastructure error, and resuming the run serves this task again.`;
  }
  return storage.why === 'slow'
    ? `It is still being scored and not stored yet after ${storedWaitMs / 1000} s: if the server stops before it is, resuming the run serves this task again.`
    : 'The run stopped before it was stored: resuming the run serves this task again.';
}

/** An answer that ended the episode, with a note when the episode is not stored as scored. */
function withStorage(answer: McpToolAnswer, storage: EpisodeStorage | undefined): McpToolAnswer {
  if (storage === undefined || (storage.stored && storage.status === 'scored')) return answer;
  return { ...answer, content: [...answer.content, { type: 'text', text: notStoredText(storage) }] };
}

function textAnswer(text: string): McpToolAnswer {
  return { content: [{ type: 'text', text }] };
}

function errorAnswer(code: string, message: string): McpToolAnswer {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message } }) }], isError: true };
}
