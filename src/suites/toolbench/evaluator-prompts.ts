/**
 * The StableToolBench evaluator prompts (`tooleval_gpt-3.5-turbo_default/template.txt`, read at run
 * time from the shared data or a given path, never copied into the repository): blocks of
 * `<function><name>N</name><description>D</description></function>`, where D holds `{query}`,
 * `{answer}`... placeholders. The judge is asked to call function N, whose only argument is
 * `answer_status` (Solved / Unsolved / Unsure), as the reference's config declares.
 */
import { ConfigError } from '../../core/errors.ts';
import type { Message } from '../../core/message.ts';
import { datasetPath } from '../../core/data-location.ts';
import type { ToolSpec } from '../../core/tool.ts';
import { answerStatuses } from './solvable-pass-rate.ts';
import { readTextFileSync } from '../../core/read-text-file.ts';
import { fileProblem } from '../../core/file-problem.ts';

export type EvaluatorPrompts = ReadonlyMap<string, string>;

export function evaluatorTemplatePath(): string {
  return datasetPath('stabletoolbench', 'toolbench', 'tooleval', 'evaluators', 'tooleval_gpt-3.5-turbo_default', 'template.txt');
}

export function parseEvaluatorTemplate(text: string): EvaluatorPrompts {
  const prompts = new Map<string, string>();
  for (const match of text.matchAll(/<function>\s*<name>([\s\S]*?)<\/name>\s*<description>([\s\S]*?)<\/description>\s*<\/function>/g)) {
    prompts.set(match[1].trim(), match[2].trim());
  }
  return prompts;
}

export function loadEvaluatorPrompts(path = evaluatorTemplatePath()): EvaluatorPrompts {
  let text: string;
  try {
    text = readTextFileSync(path);
  } catch (error) {
    // A readable file that is not text (compressed) says so itself.
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('input.unreadable', `cannot read the evaluator template '${path}': ${fileProblem(path, error)}`, {
      fix: 'point to StableToolBench toolbench/tooleval/evaluators/tooleval_gpt-3.5-turbo_default/template.txt',
    });
  }
  const prompts = parseEvaluatorTemplate(text);
  for (const name of ['check_answer_status', 'parse_answer_status']) {
    if (!prompts.has(name)) throw new ConfigError('input.invalid', `evaluator template '${path}' has no function '${name}'`, { fix: 'use the StableToolBench template.txt' });
  }
  return prompts;
}

/** A judge request: the filled prompt as the user message and the one function to call. */
export function evaluatorRequest(prompts: EvaluatorPrompts, name: 'check_answer_status' | 'parse_answer_status', variables: Record<string, string>): { messages: Message[]; tools: ToolSpec[] } {
  const template = prompts.get(name);
  if (template === undefined) throw new ConfigError('input.invalid', `no evaluator prompt '${name}'`, { fix: 'load the StableToolBench template.txt' });
  const content = template.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(variables, key) ? variables[key] : whole));
  return {
    messages: [{ role: 'user', content }],
    tools: [{
      name,
      description: 'Parse the json answer with layerd nodes and return the answer_status about the answer',
      inputSchema: { type: 'object', properties: { answer_status: { type: 'string', enum: [...answerStatuses.slice().reverse()] } }, required: ['answer_status'] },
    }],
  };
}
