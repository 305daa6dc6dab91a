import { z } from 'zod';
import type { FinishReason } from '../spec.ts';

/** The part of a Chat Completions answer we read; local servers omit ids and usage, so both are optional. */
export const openAIChatResponseSchema = z.object({
  choices: z.array(z.object({
    message: z.object({
      content: z.string().nullish(),
      // vLLM and llama.cpp put reasoning models' thinking here.
      reasoning_content: z.string().nullish(),
      reasoning: z.string().nullish(),
      tool_calls: z.array(z.object({
        id: z.string().nullish(),
        function: z.object({ name: z.string(), arguments: z.unknown() }),
      })).nullish(),
    }),
    finish_reason: z.string().nullish(),
  })).min(1),
  usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});

/** A legacy `/v1/completions` answer (base models). */
export const openAICompletionResponseSchema = z.object({
  choices: z.array(z.object({ text: z.string(), finish_reason: z.string().nullish() })).min(1),
  usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});

export function mapOpenAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop': return 'stop';
    case 'length': return 'length';
    case 'tool_calls':
    case 'function_call': return 'tool-calls';
    case 'content_filter': return 'content-filter';
    default: return 'other';
  }
}
