/**
 * `--set phrasing=model`: a model rewrites the template question as a word problem. The numbers and
 * the computation must stay; the gold sequence and answer do not change.
 */
import { defaultLimits } from '../../core/limits.ts';
import type { Task } from '../../core/task.ts';
import type { ModelSource } from '../../models/spec.ts';

const instruction = 'Rewrite the calculation below as a short, natural word problem. Keep every number exactly as written, '
  + 'keep the order of the steps, and end with the question. Reply with the word problem only.';

/** A model's rewrite is kept only when it keeps the question's numbers; otherwise the template text is used. */
export type Phrasing = { text: string; source: 'model' | 'template-fallback' };

export async function phraseWithModel(source: ModelSource, templateQuestion: string, signal?: AbortSignal): Promise<Phrasing> {
  // Network models ignore the episode; it only has to be well-formed.
  const placeholder: Task = {
    schemaVersion: 1, id: 'nestful/phrasing', suite: { id: 'nestful', version: 'phrasing' }, seed: 0, params: {},
    prompt: [], tools: [], modes: ['sequence'], expected: null, limits: defaultLimits, stats: {},
  };
  const model = source.forEpisode({ task: placeholder, trial: 0, mode: 'sequence' });
  const result = await model.generate({
    messages: [{ role: 'system', content: instruction }, { role: 'user', content: templateQuestion }],
    tools: [], toolChoice: 'none', settings: { temperature: 0 }, signal: signal ?? new AbortController().signal,
  });
  const text = result.message.content.trim();
  return keepsEveryNumber(templateQuestion, text) ? { text, source: 'model' } : { text: templateQuestion, source: 'template-fallback' };
}

/**
 * The gold calls take their arguments from the question's numbers: a rewrite that drops or changes one (or
 * replaces the question with an answer, "The answer is 42.") would make the task unsolvable as stated, even
 * though the oracle, which never reads the question, would still pass it.
 */
export function keepsEveryNumber(original: string, rewritten: string): boolean {
  if (rewritten === '') return false;
  const numbersOf = (text: string): Set<number> => new Set((text.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/-?\d+(?:\.\d+)?/g) ?? [])
    .map((literal) => Math.abs(Number(literal))));
  const kept = numbersOf(rewritten);
  return [...numbersOf(original)].every((number) => kept.has(number));
}
