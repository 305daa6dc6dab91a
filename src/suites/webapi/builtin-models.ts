/**
 * Built-in models for the webapi suite:
 * - oracle: answers with the expected config rendered as an axios call (the renderer the gold
 *   self-check uses), as a chat answer in a code fence or as a raw continuation of the starter;
 * - random: a random operation of the spec with random arguments (must score near 0).
 */
import type { JsonObject } from '../../core/json.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import type { Task } from '../../core/task.ts';
import { createScriptedModel } from '../../models/builtin/scripted-model.ts';
import type { EpisodeContext, GenerateRequest, GenerateResult, LanguageModel } from '../../models/spec.ts';
import { listOperations } from '../../openapi/document.ts';
import { sampleSchemaValue } from '../../openapi/schema-sampler.ts';
import type { BuiltinModel } from '../spec.ts';
import type { RequestConfig } from './request-config.ts';
import { renderAxiosCall } from './render-axios.ts';
import { loadJudgedSpec } from './drifted-spec.ts';
import { readWebapiExpected } from './webapi-task.ts';

/** The answer a model gives when it writes `call` (a rendered axios call) for this task. */
export function answerWithCall(task: Task, call: string): string {
  const expected = readWebapiExpected(task);
  const starter = task.starter ?? '';
  if (expected.endpoint === 'chat') return `\`\`\`javascript\n${starter.slice(0, starter.lastIndexOf('\n') + 1)}${call}\`\`\`\n`;
  const lastLine = starter.slice(starter.lastIndexOf('\n') + 1);
  if (call.startsWith(lastLine)) return call.slice(lastLine.length);
  if (lastLine.endsWith(',') && call.startsWith(lastLine.slice(0, -1))) return call.slice(lastLine.length - 1);
  return call;
}

export const webapiBuiltinModels: Readonly<Record<string, BuiltinModel>> = {
  oracle: {
    description: 'Answers with the expected request config rendered as an axios call (must score 100%).',
    create(episode: EpisodeContext): LanguageModel {
      const text = answerWithCall(episode.task, renderAxiosCall(readWebapiExpected(episode.task).config));
      return createScriptedModel({ modelId: 'oracle', mode: episode.mode, policy: () => ({ type: 'text', text }) });
    },
  },
  random: {
    description: 'Calls a random operation of the spec with random arguments (must score near 0).',
    create(episode: EpisodeContext): LanguageModel {
      return {
        specificationVersion: 'v1',
        provider: 'builtin',
        modelId: 'random',
        async generate(_request: GenerateRequest): Promise<GenerateResult> {
          const text = answerWithCall(episode.task, renderAxiosCall(await randomConfig(episode)));
          return { message: { role: 'assistant', content: text, toolCalls: [] }, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 }, warnings: [], raw: { request: null, response: null } };
        },
      };
    },
  },
};

async function randomConfig(episode: EpisodeContext): Promise<RequestConfig> {
  const expected = readWebapiExpected(episode.task);
  const document = await loadJudgedSpec(expected);
  const rng = new Rng(deriveSeed(episode.task.seed, episode.task.id, episode.trial, 'random'));
  const operation = rng.pick(listOperations(document));
  let url = `${document.serverUrls[0]}${operation.template}`;
  for (const placeholder of operation.template.match(/\{[^}]*\}/g) ?? []) url = url.replace(placeholder, String(rng.int(1000, 9999)));
  const headers: JsonObject = { Authorization: 'Bearer <token>' };
  const params: JsonObject = {};
  for (const parameter of operation.parameters) {
    if ((parameter.location !== 'query' && parameter.location !== 'header') || !rng.bool(0.5)) continue;
    const value = sampleSchemaValue(parameter.schema, rng.child(parameter.name), {}, parameter.name);
    if (parameter.location === 'header') headers[parameter.name] = typeof value === 'string' ? value : JSON.stringify(value);
    else params[parameter.name] = value;
  }
  const config: RequestConfig = { url, method: operation.method, headers };
  if (Object.keys(params).length > 0) config.params = params;
  const media = operation.requestBody?.content.find((candidate) => candidate.mediaType === 'application/json');
  if (media && rng.bool(0.7)) {
    const body = sampleSchemaValue(media.schema, rng.child('body'), { optionalProbability: 0.5 });
    if (body && typeof body === 'object' && !Array.isArray(body)) config.data = body;
  }
  return config;
}
