import { ConfigError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { Knob } from '../knob.ts';
import type { Endpoint, Setup } from './prompt.ts';

export const webapiKnobs: readonly Knob[] = [
  { type: 'string', name: 'data', description: 'a WAPIIBench task file to import (default: the 395 WAPIIBench tasks from the shared data, unless spec= asks for generated tasks)', default: null, path: 'file' },
  { type: 'string', name: 'spec', description: 'an OpenAPI 3 file (YAML or JSON): generate fresh tasks from it, or the spec of a one-API data file', default: null, path: 'file' },
  { type: 'string', name: 'specs', description: 'a folder holding <api>.yaml for each api of the data file', default: null, path: 'folder' },
  { type: 'enum', name: 'setup', description: "starter code: full completion (ends with 'axios.') or argument completion (method and URL given)", default: 'full', values: ['full', 'argument'] },
  { type: 'enum', name: 'endpoint', description: 'chat: the model answers with code in a fence; completions: a base model continues the starter (OpenAI-compatible completions endpoint)', default: 'chat', values: ['chat', 'completions'] },
  { type: 'enum', name: 'phrasing', description: 'task text of generated tasks: a deterministic template, or rephrased by the phrasing model (values kept verbatim)', default: 'template', values: ['template', 'model'] },
  { type: 'number', name: 'optional', description: 'probability of filling each optional argument of generated tasks', default: 0.3, min: 0, max: 1 },
  { type: 'integer', name: 'executionTimeMs', description: 'sandbox time limit for running one program', default: 2000, min: 100, max: 60000 },
];

export type WebapiParams = {
  data: string | null;
  spec: string | null;
  specs: string | null;
  setup: Setup;
  endpoint: Endpoint;
  phrasing: 'template' | 'model';
  optional: number;
  executionTimeMs: number;
};

export function parseWebapiParams(params: JsonObject): WebapiParams {
  const text = (name: string) => (typeof params[name] === 'string' && params[name] !== '' ? (params[name] as string) : null);
  const setup = params.setup === 'argument' ? 'argument' : 'full';
  const endpoint = params.endpoint === 'completions' ? 'completions' : 'chat';
  const phrasing = params.phrasing === 'model' ? 'model' : 'template';
  const optional = typeof params.optional === 'number' ? params.optional : 0.3;
  const executionTimeMs = typeof params.executionTimeMs === 'number' ? params.executionTimeMs : 2000;
  if (text('spec') && text('specs')) {
    throw new ConfigError('config.invalid-knob', "suite 'webapi': knobs 'spec' and 'specs' exclude each other", {
      fix: '--set spec=<file> for one API, or --set specs=<dir> with <api>.yaml files',
    });
  }
  return { data: text('data'), spec: text('spec'), specs: text('specs'), setup, endpoint, phrasing, optional, executionTimeMs };
}
