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
      // Only the model wrote these (a local server's tool parser passes on what it made of the model's text): a call
      // without a name or of another type is the model's malformed call, scored as one, not a broken response.
      tool_calls: z.array(z.object({
        id: z.union([z.string(), z.number()]).nullish(),
        type: z.string().nullish(),
        function: z.object({ name: z.unknown(), arguments: z.unknown() }).partial().nullish(),
        custom: z.object({ name: z.unknown(), input: z.unknown() }).partial().nullish(),
      })).nullish(),
      // A safety refusal, in place of content.
      refusal: z.string().nullish(),
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
