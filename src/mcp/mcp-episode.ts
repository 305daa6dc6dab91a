/**
 * One episode as an MCP client sees it: the task's tools (or `run_program` in code mode) backed by the
 * episode's environment, and `submit_answer`. Every call the client makes becomes a transcript message
 * (an assistant turn with one tool call, then its result), so a stored MCP episode reads like any other
 * and the suite scores it unchanged. The episode ends when the client submits an answer (or, in code
 * mode, runs its program), or when the tool-call limit is reached; a disconnect or a timeout is an
 * infrastructure error (`fail`), never scored.
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

export const submitAnswerTool = 'submit_answer';
export const runProgramTool = 'run_program';

export type McpEpisodeOutcome = { termination: Termination; messages: Message[] };

/** What an MCP tools/call answers: text content, `isError` for a tool error the client should recover from. */
export type McpToolAnswer = { content: { type: 'text'; text: string }[]; isError?: boolean };

export class McpEpisode {
  readonly messages: Message[];
  readonly outcome: Promise<McpEpisodeOutcome>;
  private ended = false;
  private toolCalls = 0;
  private resolveOutcome: (outcome: McpEpisodeOutcome) => void = () => {};
  private rejectOutcome: (error: Error) => void = () => {};

  constructor(readonly task: Task, readonly mode: Mode, private readonly context: AgentContext) {
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
    if (this.ended) return errorAnswer('episode.over', 'this episode has ended; start a new session (or read the next task) to continue');
    if (this.mode === 'code') {
      if (name !== runProgramTool) return errorAnswer('tool.unknown', `unknown tool '${name}' (code-mode tasks offer only ${runProgramTool})`);
      // A call without its one argument is a malformed call, answered as the task's tools answer one: the episode goes on.
      if (typeof args?.program !== 'string') return this.refuseMalformed(name, args, `${runProgramTool} needs {"program": "<your program>"}; nothing ran and the episode goes on`);
      return this.runProgram(args.program);
    }
    if (name === submitAnswerTool) {
      if (args?.answer === undefined) return this.refuseMalformed(name, args, `${submitAnswerTool} needs {"answer": "<your final answer>"}; nothing was recorded and the episode goes on`);
      const answer = typeof args.answer === 'string' ? args.answer : JSON.stringify(args.answer);
      this.finish('final-answer', answer);
      return textAnswer('answer recorded; the episode is over');
    }
    if (this.toolCalls >= this.context.limits.maxToolCalls) {
      this.finish('max-tool-calls', '');
      return errorAnswer('limit.exceeded', `the episode's limit of ${this.context.limits.maxToolCalls} tool calls is reached; the episode is over`);
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
    this.finish('final-answer', '');
  }

  /** The client went away or ran out of time: infrastructure, never scored. */
  fail(error: ToolForgeError): void {
    if (this.ended) return;
    this.ended = true;
    this.rejectOutcome(error);
  }

  private finish(termination: Termination, answer: string): void {
    if (this.ended) return;
    this.ended = true;
    this.messages.push({ role: 'assistant', content: answer, toolCalls: [] });
    this.resolveOutcome({ termination, messages: this.messages });
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
    this.resolveOutcome({ termination: stopped ?? 'final-answer', messages: this.messages });
    const { extraction } = run;
    const summary = extraction.type !== 'program' ? { ran: false, reason: extraction.reason }
      : run.variants ? { ran: true, runs: run.variants.map((variant) => ({ label: variant.label, result: variant.result })) }
        : { ran: true, result: run.result };
    return textAnswer(JSON.stringify(summary));
  }
}

function textAnswer(text: string): McpToolAnswer {
  return { content: [{ type: 'text', text }] };
}

function errorAnswer(code: string, message: string): McpToolAnswer {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message } }) }], isError: true };
}
