/**
 * Instruction translation by two agents over any configured language model (paper III-E, reference 6.4): a
 * generator turns the program into a natural-language feature request, an evaluator judges it (ok /
 * needs_revision / impossible) and the generator revises with the diagnosis, for at most `maxRounds` rounds. Only
 * an `ok` translation is kept. Prompts are our own wording of the paper's requirements: unambiguous, natural,
 * non-redundant, initialization variables defined by name and type without values, no code or API names, and what
 * RESULT holds.
 */
import { z } from 'zod';
import type { Message } from '../../core/message.ts';
import type { LanguageModel } from '../../models/spec.ts';
import { renderInitBlock, type StatefulProgram } from './program-generator.ts';
import { scenarioDocumentation } from './scenario-documentation.ts';

const generatorPrompt = `You are a senior software engineer. Translate the program below, a block of sequential API calls with
at most one if/else, into a precise natural-language feature request that a developer would give a coding assistant.
Requirements, in priority order:
1. Unambiguous: the request must allow reproducing the program exactly (every call, argument source, order, the
   condition and both branches, and what RESULT holds at the end).
2. Natural: write as a developer talks to an assistant, not as code read aloud; do not name functions or endpoints.
3. Non-redundant: only the information needed; the documentation tells the rest.
Refer to the preloaded variables by name and describe their type, never their values.
Answer with JSON only: {"user_variable_definitions": string, "task_instructions": string}.`;

const evaluatorPrompt = `You are a senior technical lead reviewing a natural-language feature request written for the program
below. Check fidelity (the request leads to exactly this program, including the branch and RESULT), abstraction (it
does not read the code aloud or give the preloaded values), human-likeness and redundancy.
Answer with JSON only: {"verdict": "ok" | "needs_revision" | "impossible", "diagnosis": string, "suggestions": string}.`;

const translationSchema = z.object({ user_variable_definitions: z.string(), task_instructions: z.string() });
const reviewSchema = z.object({ verdict: z.enum(['ok', 'needs_revision', 'impossible']), diagnosis: z.string().default(''), suggestions: z.string().default('') });

export type AgentTranslation =
  | { verdict: 'ok'; instruction: string; rounds: number }
  | { verdict: 'impossible' | 'not-converged'; rounds: number; diagnosis: string };

/** The JSON object in a reply (a fenced block or the first {...}); undefined when there is none. */
export function extractJsonObject(text: string): unknown {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/);
  const candidate = fenced ? fenced[1] : text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  try {
    return JSON.parse(candidate);
  } catch {
    return undefined;
  }
}

async function ask(model: LanguageModel, system: string, user: string, signal: AbortSignal): Promise<string> {
  const messages: Message[] = [{ role: 'system', content: system }, { role: 'user', content: user }];
  const result = await model.generate({ messages, tools: [], toolChoice: 'none', settings: { temperature: 0 }, signal });
  return result.message.content;
}

function programText(program: StatefulProgram): string {
  return `===Documentation===\n${scenarioDocumentation[program.scenario]}\n\n===Program===\n${renderInitBlock(program)}\n${program.body}`;
}

export async function translateWithAgents(
  program: StatefulProgram,
  models: { generator: LanguageModel; evaluator: LanguageModel },
  options: { maxRounds?: number; signal?: AbortSignal } = {},
): Promise<AgentTranslation> {
  const maxRounds = options.maxRounds ?? 3;
  const signal = options.signal ?? new AbortController().signal;
  let feedback = '';
  for (let round = 1; round <= maxRounds; round += 1) {
    const reply = await ask(models.generator, generatorPrompt, `${programText(program)}${feedback}`, signal);
    const translation = translationSchema.safeParse(extractJsonObject(reply));
    if (!translation.success) {
      feedback = '\n\n===Reviewer feedback===\nYour previous answer was not the requested JSON object. Answer with JSON only.';
      continue;
    }
    const instruction = `${translation.data.user_variable_definitions.trim()}\n\n${translation.data.task_instructions.trim()}`;
    const review = reviewSchema.safeParse(extractJsonObject(await ask(models.evaluator, evaluatorPrompt, `${programText(program)}\n\n===Feature request===\n${instruction}`, signal)));
    if (!review.success) {
      feedback = '';
      continue;
    }
    if (review.data.verdict === 'ok') return { verdict: 'ok', instruction, rounds: round };
    if (review.data.verdict === 'impossible') return { verdict: 'impossible', rounds: round, diagnosis: review.data.diagnosis };
    feedback = `\n\n===Your previous request===\n${instruction}\n\n===Reviewer feedback===\n${review.data.diagnosis}\n${review.data.suggestions}`;
  }
  return { verdict: 'not-converged', rounds: maxRounds, diagnosis: 'no ok verdict within the round limit' };
}
