/**
 * The code-generation prompt and the starter code of the paper's two setups:
 * - full completion: `// {task}\nconst axios = require('axios');\n\naxios.`
 * - argument completion: the same up to `axios.{method}('{url}',`
 * The prompt template is read at run time from the WAPIIBench resources (never copied into the
 * repository); without the shared data a short template of our own says the same.
 */
import { existsSync } from 'node:fs';
import { datasetPath } from '../../core/data-location.ts';
import type { RequestConfig } from './request-config.ts';
import { readTextFileSync } from '../../core/read-text-file.ts';

export type Setup = 'full' | 'argument';
export type Endpoint = 'chat' | 'completions';

const axiosSyntax = 'axios.method(url[, config])';

let cachedTemplate: { text: string; source: InstructionSource } | undefined;

/**
 * Whose instructions a prompt carries: WAPIIBench's (the data's code_generation_prompt.md) or ours, when the data is
 * not on this machine. Tasks record the second (`params.instruction`), since the same spec then gives other prompts.
 */
export type InstructionSource = 'wapiibench' | 'toolforge';

export function instructionSource(): InstructionSource {
  return promptTemplate().source;
}

function promptTemplate(): { text: string; source: InstructionSource } {
  if (cachedTemplate !== undefined) return cachedTemplate;
  const path = datasetPath('wapiibench', 'resources', 'code_generation_prompt.md');
  cachedTemplate = existsSync(path) ? { text: readTextFileSync(path), source: 'wapiibench' } : { text: fallbackTemplate, source: 'toolforge' };
  return cachedTemplate;
}

const fallbackTemplate = [
  'Write JavaScript that sends the HTTP request the comment describes with one Axios call (`{syntax}`).',
  'Pass every argument the task needs and nothing else, with the values inlined. Use `<key>` for API keys and',
  '`<token>` for authorization tokens. For request bodies that are not JSON, set the Content-Type header explicitly.',
  '',
  'Your next task is about the {api} API. Complete the following code snippet{extra_instructions}:',
  '',
  '```javascript',
  '',
].join('\n');

export function starterCode(task: string, setup: Setup, config: RequestConfig): string {
  const head = `// ${task}\nconst axios = require('axios');\n\naxios.`;
  return setup === 'full' ? head : `${head}${config.method.toLowerCase()}('${config.url}',`;
}

/** The whole prompt text: instructions + the opened code fence + the starter code. */
export function codeGenerationPrompt(options: { apiName: string; endpoint: Endpoint; starter: string }): string {
  // Chat (instruction-tuned) models are told to answer without explanations, as the paper does for instruct models.
  const extra = options.endpoint === 'chat' ? ' without any explanations' : '';
  const instructions = promptTemplate().text
    .replace('{syntax}', axiosSyntax)
    .replace('{api}', options.apiName)
    .replace('{extra_instructions}', extra);
  return instructions + options.starter;
}
