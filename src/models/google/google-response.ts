import { z } from 'zod';
import type { FinishReason } from '../spec.ts';

/** The part of a generateContent answer (wire JSON, camelCase) we read. */
export const googleResponseSchema = z.object({
  candidates: z.array(z.object({
    content: z.object({
      parts: z.array(z.object({
        text: z.string().nullish(),
        thought: z.boolean().nullish(),
        // `args` is an object from the real API; a string (from a proxy) is kept as the raw text.
        functionCall: z.object({ id: z.string().nullish(), name: z.string(), args: z.unknown() }).nullish(),
        // Gemini 3 rejects a later turn whose function calls come back without it.
        thoughtSignature: z.string().nullish(),
      })).nullish(),
    }).nullish(),
    finishReason: z.string().nullish(),
  })).nullish(),
  promptFeedback: z.object({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: z.object({
    promptTokenCount: z.number().nullish(),
    candidatesTokenCount: z.number().nullish(),
    thoughtsTokenCount: z.number().nullish(),
  }).nullish(),
});

export function mapGoogleFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'STOP': return 'stop';
    case 'MAX_TOKENS': return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY': return 'content-filter';
    // The model tried to call a tool and produced something Gemini could not parse: a model fault.
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL': return 'error';
    default: return 'other';
  }
}
