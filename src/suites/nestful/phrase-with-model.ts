/**
 * `--set phrasing=model`: a model rewrites the template question as a word problem. The numbers and
 * the computation must stay; the gold sequence and answer do not change.
 */
import { defaultLimits } from '../../core/limits.ts';
import type { Task } from '../../core/task.ts';
import type { ModelSource } from '../../models/spec.ts';

const instruction = 'Rewrite the calculation below as a short, natural word problem. Keep every number exactly as written, '
  + 'keep the order of the steps, and end with the question. Reply with the word problem only.';

export async function phraseWithModel(source: ModelSource, templateQuestion: string, signal?: AbortSignal): Promise<string> {
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
  return text === '' ? templateQuestion : text;
}
