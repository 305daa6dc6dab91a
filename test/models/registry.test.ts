import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { createModelSource, modelProviderPrefixes, parseModelReference } from '../../src/models/registry.ts';
import { episodeTask } from '../conformance/model-provider.cases.ts';

function assertConfigError(action: () => unknown, code: string, pattern: RegExp): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('model registry', () => {
  test('splits a reference at the first slash, keeping slashes in the model id', () => {
    assert.deepEqual(parseModelReference('openai/gpt-4.1'), { provider: 'openai', modelId: 'gpt-4.1', ref: 'openai/gpt-4.1' });
    assert.deepEqual(parseModelReference('openai-compatible/meta-llama/Llama-3.1-8B'), { provider: 'openai-compatible', modelId: 'meta-llama/Llama-3.1-8B', ref: 'openai-compatible/meta-llama/Llama-3.1-8B' });
    assert.deepEqual(parseModelReference('replay/runs/a.jsonl'), { provider: 'replay', modelId: 'runs/a.jsonl', ref: 'replay/runs/a.jsonl' });
  });

  test('a reference without a provider or a model id is config.unknown-model', () => {
    for (const ref of ['gpt-4.1', 'openai/', '/gpt-4.1', '']) {
      assertConfigError(() => parseModelReference(ref), 'config.unknown-model', /<provider>\/<model-id>/);
    }
  });

  test('an unknown provider lists every valid prefix, builtin/ included', () => {
    assert.deepEqual(modelProviderPrefixes, ['openai/', 'openai-compatible/', 'anthropic/', 'google/', 'replay/', 'builtin/']);
    assertConfigError(() => createModelSource('mistral/large', { env: {} }), 'config.unknown-model',
      /unknown model provider 'mistral'[\s\S]*openai\/, openai-compatible\/, anthropic\/, google\/, replay\/, builtin\//);
  });

  test('mcp/ references (how external agent runs are named) point to --agent-command and serve', () => {
    assertConfigError(() => createModelSource('mcp/claude', { env: {} }), 'config.unknown-model', /'mcp\/claude' names an external agent[\s\S]*--agent-command[\s\S]*toolforge serve/);
  });

  test('builtin/ references are left to the runner', () => {
    assertConfigError(() => createModelSource('builtin/oracle', { env: {} }), 'config.unknown-model', /resolved through the suite/);
  });

  test('each network provider names its key variable when the key is missing or blank', () => {
    assertConfigError(() => createModelSource('openai/gpt-4.1', { env: {} }), 'config.missing-api-key', /OPENAI_API_KEY/);
    assertConfigError(() => createModelSource('anthropic/claude-x', { env: { ANTHROPIC_API_KEY: ' ' } }), 'config.missing-api-key', /ANTHROPIC_API_KEY/);
    assertConfigError(() => createModelSource('google/gemini-x', { env: {} }), 'config.missing-api-key', /GEMINI_API_KEY or GOOGLE_API_KEY/);
  });

  test('google accepts GOOGLE_API_KEY when GEMINI_API_KEY is unset', () => {
    const model = createModelSource('google/gemini-x', { env: { GOOGLE_API_KEY: 'k' } }).forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
    assert.equal(model.provider, 'google');
    assert.equal(model.modelId, 'gemini-x');
  });

  test('network sources share one model across episodes and keep the reference', () => {
    const source = createModelSource('openai/gpt-4.1', { env: { OPENAI_API_KEY: 'k' } });
    assert.equal(source.ref, 'openai/gpt-4.1');
    const first = source.forEpisode({ task: episodeTask('suite-x/1'), trial: 0, mode: 'calls' });
    const second = source.forEpisode({ task: episodeTask('suite-x/2'), trial: 1, mode: 'calls' });
    assert.equal(first, second);
    assert.equal(first.specificationVersion, 'v1');
  });

  test('vendor SDKs are only imported lazily: static imports of them are type-only', () => {
    const sdk = /from '(openai|@anthropic-ai\/sdk|@google\/genai)'/;
    const offenders: string[] = [];
    const visit = (directory: string): void => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const path = join(directory, entry.name);
        if (entry.isDirectory()) visit(path);
        else if (entry.name.endsWith('.ts')) {
          readFileSync(path, 'utf8').split('\n').forEach((line, index) => {
            if (sdk.test(line) && !/^import type /.test(line)) offenders.push(`${path}:${index + 1}: ${line}`);
          });
        }
      }
    };
    visit('src/models');
    assert.deepEqual(offenders, []);
  });
});
