/**
 * What the model reads. Sequence mode uses NESTFUL's own instruction (the LLaMa-3.1 template of the
 * data's PROMPTS.json, read at run time, with the tool list as `json.dumps` and 0, 1 or 3 in-context
 * examples from the data's icl_examples.json). Calls and react modes get a short instruction about
 * referencing earlier results; their agents add the protocol.
 */
import { existsSync } from 'node:fs';
import { ConfigError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { PromptMessage } from '../../core/message.ts';
import { datasetPath } from '../../core/data-location.ts';
import { parseLenientJson } from './lenient-json.ts';
import type { NestfulTool } from './nestful-sample.ts';
import { pythonJsonDumps } from './python-format.ts';
import { readTextFileSync } from '../../core/read-text-file.ts';

const templateName = 'LLaMa-3.1';

/** Our own wording, used only when the data's PROMPTS.json is not available. */
const fallbackInstruction = [
  'You compose functions. Given a question and a list of functions, answer with the sequence of function calls that computes the answer.',
  'Reply with only a JSON list in this format: [{"name": "func_name1", "arguments": {"argument1": "value1"}, "label": "$var_1"}, ...]',
  'Give every call a unique label; a later call uses an earlier output by writing "$var_1.<output name>$" as an argument value.',
  '',
  'Functions:',
  '{FUNCTION_STR}',
  '',
  'Here are some examples:',
  '{ICL_EXAMPLES}',
].join('\n');

/**
 * Whose instruction a sequence prompt carries: NESTFUL's (the data's PROMPTS.json) or ours, when the data is not on
 * this machine. Tasks record the second (`params.instruction`), since the same seed then gives different prompts.
 */
export type InstructionSource = 'nestful' | 'toolforge';

let cachedTemplate: { text: string; source: InstructionSource } | undefined;
let cachedExamples: JsonValue[] | undefined;

export function instructionSource(): InstructionSource {
  return instructionTemplate().source;
}

function instructionTemplate(): { text: string; source: InstructionSource } {
  if (cachedTemplate !== undefined) return cachedTemplate;
  const path = datasetPath('nestful', 'src', 'PROMPTS.json');
  let template: { text: string; source: InstructionSource } = { text: fallbackInstruction, source: 'toolforge' };
  if (existsSync(path)) {
    const parsed = parseLenientJson(readTextFileSync(path));
    if (!parsed.ok) throw damagedDataFile(path, 'it is not valid JSON');
    const raw = isJsonObject(parsed.value) ? parsed.value[templateName] : undefined;
    if (typeof raw !== 'string') throw damagedDataFile(path, `it holds no "${templateName}" prompt`);
    // The system turn of the Llama chat template, without its special tokens; `{{` is str.format escaping.
    const start = raw.indexOf('<|end_header_id|>');
    const end = raw.indexOf('<|eot_id|>', start);
    if (!(start >= 0 && end > start)) throw damagedDataFile(path, `its "${templateName}" prompt is not in the Llama chat-template form`);
    template = { text: raw.slice(start + '<|end_header_id|>'.length, end).trim().replaceAll('{{', '{').replaceAll('}}', '}'), source: 'nestful' };
  }
  cachedTemplate = template;
  return template;
}

/** The data's in-context examples (empty when the data folder is absent). */
export function iclExamples(): JsonValue[] {
  if (cachedExamples !== undefined) return cachedExamples;
  const path = datasetPath('nestful', 'src', 'icl_examples.json');
  if (!existsSync(path)) {
    cachedExamples = [];
    return cachedExamples;
  }
  const parsed = parseLenientJson(readTextFileSync(path));
  if (!parsed.ok) throw damagedDataFile(path, 'it is not valid JSON');
  if (!Array.isArray(parsed.value)) throw damagedDataFile(path, 'it is not a list of examples');
  cachedExamples = parsed.value;
  return cachedExamples;
}

/**
 * A data file that is there but damaged is refused, not passed over: falling back to our own instruction or to no
 * examples would make other tasks from the same seed and knobs without a word.
 */
function damagedDataFile(path: string, reason: string): ConfigError {
  return new ConfigError('input.invalid', `the NESTFUL data file ${path} is damaged: ${reason}; the tasks made without it would differ from the data set's`, {
    fix: 'run `toolforge data verify nestful` to see which files differ, then `toolforge data fetch nestful` to repair them (or point $TOOLFORGE_DATA at an intact copy)',
  });
}

/** Rendered examples by count: every task of a run renders the same ones, and json.dumps of them is a third of a prompt's cost. */
const renderedExamples = new Map<number, string>();

function renderExamples(count: number): string {
  let rendered = renderedExamples.get(count);
  if (rendered === undefined) {
    rendered = renderExamplesUncached(count);
    renderedExamples.set(count, rendered);
  }
  return rendered;
}

function renderExamplesUncached(count: number): string {
  return iclExamples().slice(0, count).map((example, index) => {
    const input = isJsonObject(example) && typeof example.input === 'string' ? example.input : '';
    const output = isJsonObject(example) ? example.output ?? [] : [];
    return `\n#Example-${index + 1}\nInput: ${input}\nOutput: ${pythonJsonDumps(output)}\n`;
  }).join('');
}

export function sequencePrompt(query: string, tools: readonly NestfulTool[], iclCount: number): PromptMessage[] {
  let instruction = instructionTemplate().text;
  if (iclCount === 0) instruction = instruction.replace(/\n*Here are some examples:\s*\n?\{ICL_EXAMPLES\}/, '');
  const system = instruction
    .replace('{FUNCTION_STR}', () => pythonJsonDumps(tools as unknown as JsonValue))
    .replace('{ICL_EXAMPLES}', () => renderExamples(iclCount))
    .trim();
  return [{ role: 'system', content: system }, { role: 'user', content: query }];
}

export const interactiveInstruction = [
  'Answer the question by calling the tools; do not compute results yourself.',
  'Each successful call returns {"label": "$var_N", "result": <value>}. To pass an earlier result to a later call,',
  'use its value or write the reference "$var_N.result$" as the argument value.',
  'When the last call has produced the answer, reply with the answer and no further calls.',
].join(' ');

/** The prompt of calls and react modes: the same question with the interactive instruction. */
export function interactivePrompt(prompt: readonly PromptMessage[]): PromptMessage[] {
  const question = [...prompt].reverse().find((message) => message.role === 'user');
  return [{ role: 'system', content: interactiveInstruction }, { role: 'user', content: question?.content ?? '' }];
}
