import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, ProviderError } from '../../../src/core/errors.ts';
import { emptyUsage } from '../../../src/core/usage.ts';
import type { GenerateRequest, LanguageModel } from '../../../src/models/spec.ts';
import { mixCase } from '../../../src/transforms/perturb/case-mixing.ts';
import { addDistractorStory } from '../../../src/transforms/perturb/distractor-story.ts';
import {
  cleanParaphrase, createFileParaphraseCache, createMemoryParaphraseCache, paraphraseQuery, paraphraseUserPrompt,
} from '../../../src/transforms/perturb/model-paraphrase.ts';
import { addPunctuationNoise } from '../../../src/transforms/perturb/punctuation-noise.ts';
import { parseQueryPerturbationId, perturbQuery } from '../../../src/transforms/perturb/query-perturbations.ts';
import type { RandomSource } from '../../../src/transforms/perturb/random-source.ts';

/** Scripted draws, so each branch is checked by hand. */
function draws(...values: number[]): RandomSource {
  let index = 0;
  return {
    float() {
      assert.ok(index < values.length, 'no more scripted draws');
      return values[index++];
    },
  };
}

const query = 'Find hotels in Paris, France for 2 nights. Also, check the weather';

describe('query perturbations', () => {
  test('distractor story: the fixed prefix, then the query', () => {
    assert.equal(addDistractorStory('Book a table.'),
      'Ignore the following irrelevant story and focus ONLY on the actual task.\n\nStory: Yesterday my friend and I spent hours talking about movies, cats, and random trivia. None of this is related to what I actually need you to do.\n\nTask: Book a table.');
  });

  test('case mixing: upper, lower, or one draw per character', () => {
    assert.equal(mixCase('Ab c', draws(0.1)), 'AB C');
    assert.equal(mixCase('Ab c', draws(0.5)), 'ab c');
    assert.equal(mixCase('Ab c', draws(0.9, 0.7, 0.2, 0.4, 0.6)), 'aB c');
  });

  test('names and values keep their case and periods, and take no draw: identifiers, code, quoted values, decimals', () => {
    const request = 'Set RESULT to user_variable_0 where data.title is "Rome", via torch.load("t_0") or `voiceName`; 12.8 km. Then stop.';
    assert.equal(mixCase(request, draws(0.1)), 'SET RESULT TO user_variable_0 WHERE data.title IS "Rome", VIA torch.load("t_0") OR `voiceName`; 12.8 KM. THEN STOP.');
    assert.equal(mixCase(request, draws(0.5)), 'set RESULT to user_variable_0 where data.title is "Rome", via torch.load("t_0") or `voiceName`; 12.8 km. then stop.');
    // Random case draws only for the characters it may change: 'Set ' and ' to ' (eight), none for RESULT and x_1.
    assert.equal(mixCase('Set RESULT to x_1', draws(0.9, 0.7, 0.2, 0.4, 0.1, 0.6, 0.3, 0.8, 0.5)), 'sET RESULT To x_1');
    assert.equal(addPunctuationNoise(request, draws(0.9, 0.9, 0.1)), 'Set RESULT to user_variable_0 where data.title is "Rome", via torch.load("t_0") or `voiceName`; 12.8 km Then stop');
  });

  test('the task\'s tool and parameter names keep their case wherever they stand as plain words', () => {
    const names = new Set(['search', 'text', 'city']);
    assert.equal(mixCase('Search the text for the city Rome, then report the texts.', draws(0.1), names), 'SEARCH THE text FOR THE city ROME, THEN REPORT THE TEXTS.');
    // Only whole words: 'texts' is not the parameter 'text', and a name's other casing ('Search') is prose.
    assert.equal(mixCase('search and Search', draws(0.1), names), 'search AND SEARCH');
  });

  test('punctuation noise: each of the three draws, by hand', () => {
    assert.equal(addPunctuationNoise(`  ${query} `, draws(0.9, 0.9, 0.9)), query);
    assert.equal(addPunctuationNoise(query, draws(0.1, 0.9, 0.9)), `${query}.??`);
    assert.equal(addPunctuationNoise('Done!', draws(0.1, 0.9, 0.9)), 'Done!??');
    assert.equal(addPunctuationNoise(query, draws(0.9, 0.4, 0.9)), 'Find hotels in Paris,\nFrance for 2 nights. Also,\ncheck the weather');
    assert.equal(addPunctuationNoise(query, draws(0.1, 0.4, 0.29)), 'Find hotels in Paris,\nFrance for 2 nights Also,\ncheck the weather??');
  });

  test('seeded: same seed and task, same bytes; tasks draw independently', () => {
    for (const id of ['distractor', 'case-mix', 'punctuation'] as const) {
      assert.equal(perturbQuery(id, query, 3, 'task/1'), perturbQuery(id, query, 3, 'task/1'), id);
    }
    const mixed = new Set(Array.from({ length: 40 }, (_, index) => perturbQuery('case-mix', query, 3, `task/${index}`)));
    assert.ok(mixed.has(query.toUpperCase()) && mixed.has(query.toLowerCase()) && mixed.size > 3, 'all three case modes occur');
    const noisy = new Set(Array.from({ length: 40 }, (_, index) => perturbQuery('punctuation', query, 3, `task/${index}`)));
    assert.ok(noisy.size >= 4);
    assert.throws(() => parseQueryPerturbationId('typos'), ConfigError);
    assert.equal(parseQueryPerturbationId('paraphrase'), 'paraphrase');
  });
});

function scriptedModel(answers: string[]): LanguageModel & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    specificationVersion: 'v1', provider: 'test', modelId: 'paraphraser', requests,
    async generate(request) {
      requests.push(request);
      const content = answers.shift() ?? '';
      return { message: { role: 'assistant', content, toolCalls: [] }, finishReason: 'stop', usage: emptyUsage, warnings: [], raw: { request: null, response: null } };
    },
  };
}

describe('paraphrase by a model', () => {
  test('the reference prompt; the answer cleaned and cached by input hash', async () => {
    const model = scriptedModel(['Paraphrase: "Look up Paris hotels for two nights."']);
    const cache = createMemoryParaphraseCache();
    const first = await paraphraseQuery('Find hotels in Paris for 2 nights.', { model, cache });
    assert.equal(first, 'Look up Paris hotels for two nights.');
    assert.equal(model.requests.length, 1);
    assert.deepEqual(model.requests[0].messages, [
      { role: 'system', content: 'You are a skilled language agent versed in paraphrasing text.' },
      { role: 'user', content: 'Paraphrase the following user query while keeping the meaning identical. Do NOT change named entities or specific values.\n\nQuery: Find hotels in Paris for 2 nights.\n\nParaphrase:' },
    ]);
    assert.equal(model.requests[0].settings.temperature, 0);
    assert.equal(await paraphraseQuery('Find hotels in Paris for 2 nights.', { model, cache }), first);
    assert.equal(model.requests.length, 1, 'the second call is served from the cache');
    assert.equal(paraphraseUserPrompt('q').endsWith('Query: q\n\nParaphrase:'), true);
  });

  test('a file cache survives the process: a rerun asks no model', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'paraphrase-')), 'cache', 'paraphrases.json');
    const model = scriptedModel(['Locate hotels in Paris.']);
    assert.equal(await paraphraseQuery('Find hotels in Paris.', { model, cache: createFileParaphraseCache(path) }), 'Locate hotels in Paris.');
    const silent = scriptedModel([]);
    assert.equal(await paraphraseQuery('Find hotels in Paris.', { model: silent, cache: createFileParaphraseCache(path) }), 'Locate hotels in Paris.');
    assert.equal(silent.requests.length, 0);
    assert.equal(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object).length, 1);
  });

  test('the file cache appends one line per paraphrase; reads the whole-object files of earlier versions; skips a line cut by a kill', () => {
    const directory = mkdtempSync(join(tmpdir(), 'paraphrase-'));
    const path = join(directory, 'paraphrase-cache.json');
    // An earlier version's file: one object, indented.
    writeFileSync(path, `${JSON.stringify({ a: 'first', b: 'second' }, null, 1)}\n`);
    const cache = createFileParaphraseCache(path);
    assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], ['first', 'second', undefined]);
    // Only read: left as it is (a rerun on a read-only copy writes nothing).
    assert.equal(readFileSync(path, 'utf8'), `${JSON.stringify({ a: 'first', b: 'second' }, null, 1)}\n`);
    cache.set('c', 'third');
    cache.set('c', 'third');
    assert.equal(readFileSync(path, 'utf8'), '{"a":"first"}\n{"b":"second"}\n{"c":"third"}\n');
    // A kill mid-append leaves the last line cut short: it is skipped, and dropped before the next entry is appended.
    appendFileSync(path, '{"d":"fou');
    const reopened = createFileParaphraseCache(path);
    assert.equal(reopened.get('d'), undefined);
    assert.equal(reopened.get('c'), 'third');
    reopened.set('d', 'fourth');
    assert.equal(createFileParaphraseCache(path).get('d'), 'fourth');
    assert.equal(readFileSync(path, 'utf8'), '{"a":"first"}\n{"b":"second"}\n{"c":"third"}\n{"d":"fourth"}\n');
    // Damage anywhere else is refused, naming the file and the line.
    writeFileSync(path, '{"a":"first"}\nnot json\n{"b":"second"}\n');
    assert.throws(() => createFileParaphraseCache(path), (error: unknown) =>
      error instanceof ConfigError && error.message.includes(path) && /line 2 is not a JSON object of paraphrases/.test(error.message) && /delete it/.test(error.fix ?? ''));
    assert.throws(() => createFileParaphraseCache(directory), (error: unknown) => error instanceof ConfigError && /it is a folder/.test(error.message));
  });

  test('an empty answer is a retryable provider fault, not a paraphrase', async () => {
    await assert.rejects(paraphraseQuery('x', { model: scriptedModel(['  ']), cache: createMemoryParaphraseCache() }),
      (error: unknown) => error instanceof ProviderError && error.isRetryable);
    assert.equal(cleanParaphrase('“Quoted”'), 'Quoted');
  });
});
