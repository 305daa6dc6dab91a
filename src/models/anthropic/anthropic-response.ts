import { z } from 'zod';
import type { FinishReason } from '../spec.ts';

/** The part of a Messages API answer we read. Unknown block types (server tools...) are skipped. */
export const anthropicResponseSchema = z.object({
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullish(),
  usage: z.object({ input_tokens: z.number().nullish(), output_tokens: z.number().nullish() }).nullish(),
});

export const anthropicTextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
export const anthropicThinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: z.string() });
/** `input` is an object from the real API; a string (from a proxy) is kept as the raw argument text. */
export const anthropicToolUseBlockSchema = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() });

export function mapAnthropicFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence': return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded': return 'length';
    case 'tool_use': return 'tool-calls';
    case 'refusal': return 'content-filter';
    default: return 'other';
  }
}
