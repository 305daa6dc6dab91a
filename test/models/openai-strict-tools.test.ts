import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ToolSpec } from '../../src/core/tool.ts';
import { toStrictSchema } from '../../src/models/openai/strict-tool-schema.ts';
import { createModelSource } from '../../src/models/registry.ts';
import { runEvaluation } from '../../src/runner/run-evaluation.ts';
import { openResultsStore } from '../../src/store/index.ts';
import { readFuncgenTask } from '../../src/suites/funcgen/funcgen-task.ts';
import { funcgenSuite } from '../../src/suites/funcgen/index.ts';
import { generateFuncgenTask } from '../../src/suites/funcgen/task-generator.ts';
import { episodeTask } from '../conformance/model-provider.cases.ts';
import { keylessEnvironment, runCli, temporaryDirectory } from '../e2e/run-cli.ts';
import type { VendorFakeServer } from '../fakes/fake-reply.ts';
import { startOpenAIFakeServer } from '../fakes/openai-server.ts';

type WireTool = { type: string; function: { name: string; parameters: unknown; strict?: boolean } };

describe('strict tool schemas (OpenAI strict: true, FuncBenchGen appendix B.3)', () => {
  test('an all-required schema becomes strict, with additionalProperties false on every object; others say why not', () => {
    assert.deepEqual(toStrictSchema({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false }),
      { ok: true, schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false } });
    assert.deepEqual(toStrictSchema({
      type: 'object', required: ['point', 'tags'],
      properties: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }, tags: { type: 'array', items: { type: 'object', properties: {}, required: [] } } },
    }), {
      ok: true,
      schema: {
        type: 'object', required: ['point', 'tags'], additionalProperties: false,
        properties: {
          point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false },
          tags: { type: 'array', items: { type: 'object', properties: {}, required: [], additionalProperties: false } },
        },
      },
    });
    assert.deepEqual(toStrictSchema({ type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] }),
      { ok: false, reason: 'the schema has optional properties (unit)' });
    assert.deepEqual(toStrictSchema({ type: 'object', properties: { meta: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['meta'] }),
      { ok: false, reason: '.meta allows additional properties' });
    assert.deepEqual(toStrictSchema({ type: 'object', properties: { any: { type: 'object' } }, required: ['any'] }),
      { ok: false, reason: '.any is a free-form object' });
    assert.deepEqual(toStrictSchema({ type: 'object', additionalProperties: false }),
      { ok: true, schema: { type: 'object', additionalProperties: false, properties: {}, required: [] } });
    assert.deepEqual(toStrictSchema({ type: 'object', properties: { v: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['v'] }),
      { ok: false, reason: ".v uses 'oneOf'" });
  });

  describe('on the wire (fake OpenAI server on 127.0.0.1)', () => {
    let server: VendorFakeServer;
    beforeEach(async () => { server = await startOpenAIFakeServer(); });
    afterEach(async () => { await server.close(); });
    const task = generateFuncgenTask({ seed: 4, index: 0, params: { core: 3, depth: 2, connected: 1, disconnected: 1, restate: false } });
    const optional: ToolSpec = { name: 'lookup', description: 'optional unit', inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } };

    test('with strictTools every funcgen tool carries strict: true and its schema unchanged; a tool that cannot be strict is sent plain, with a warning', async () => {
      const model = createModelSource('openai/test-model', { baseUrl: server.baseUrl, env: { OPENAI_API_KEY: 'k' } }).forEpisode({ task: episodeTask(), trial: 0, mode: 'calls' });
      server.reply({ type: 'message', text: 'a' }, { type: 'message', text: 'b' });
      const request = (strictTools: boolean | undefined, tools: ToolSpec[]) => model.generate({
        messages: [{ role: 'user', content: 'q' }], tools, toolChoice: 'auto', settings: strictTools === undefined ? {} : { strictTools }, signal: new AbortController().signal,
      });
      const strict = await request(true, [...task.tools, optional]);
      const strictTools = (server.requests[0].body as { tools: WireTool[] }).tools;
      assert.deepEqual(strictTools.slice(0, -1), task.tools.map((tool) => ({
        type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: true },
      })));
      assert.deepEqual(strictTools.at(-1), { type: 'function', function: { name: 'lookup', description: 'optional unit', parameters: optional.inputSchema } });
      assert.deepEqual(strict.warnings, [{ type: 'other', message: 'strictTools: 1 tool(s) sent without strict, their schemas cannot be strict: lookup: the schema has optional properties (unit)' }]);

      const plain = await request(undefined, task.tools);
      assert.ok((server.requests[1].body as { tools: WireTool[] }).tools.every((tool) => !('strict' in tool.function)));
      assert.deepEqual(plain.warnings, []);
    });

    test('the CLI flag --strict-tools reaches the wire and the stored provenance; --resume cannot change it', async () => {
      server.reply({ type: 'message', text: 'It is 5.' });
      const directory = temporaryDirectory();
      try {
        const environment = { ...keylessEnvironment(), OPENAI_API_KEY: 'k' };
        const result = await runCli(['run', 'funcgen', '--model', 'openai/test-model', '--base-url', server.baseUrl, '--count', '1', '--strict-tools', '--json'],
          { cwd: directory, env: environment });
        assert.equal(result.code, 0, result.stderr);
        const tools = (server.requests[0].body as { tools: WireTool[] }).tools;
        assert.ok(tools.length > 0 && tools.every((tool) => tool.function.strict === true));
        const { runId } = JSON.parse(result.stdout) as { runId: string };
        const store = openResultsStore(join(directory, '.toolforge', 'results.db'));
        try {
          const run = store.getRun(runId);
          assert.deepEqual(run.provenance.model.settings, { strictTools: true });
          assert.ok(run.provenance.cliArgs.includes('--strict-tools'));
        } finally {
          store.close();
        }
        const resumed = await runCli(['run', '--resume', runId, '--strict-tools'], { cwd: directory, env: environment });
        assert.equal(resumed.code, 2);
        assert.match(resumed.stderr, /--strict-tools cannot change them/);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    test('a funcgen run with strictTools: strict on every request, and the setting recorded in the stored provenance', async () => {
      const { expected } = readFuncgenTask(task);
      const byName = new Map(expected.functions.map((fn) => [fn.name, fn]));
      server.reply(
        {
          type: 'message',
          toolCalls: expected.solution.map((name, index) => ({
            id: `call_${index}`, name, argumentsText: JSON.stringify(Object.fromEntries((byName.get(name)?.parameters ?? []).map((parameter) => [parameter.name, parameter.value]))),
          })),
        },
        { type: 'message', text: `The value is ${expected.target.value}.` },
      );
      const directory = mkdtempSync(join(tmpdir(), 'toolforge-strict-'));
      try {
        const dbPath = join(directory, 'results.db');
        const summary = await runEvaluation({
          suite: funcgenSuite, tasks: [task], modelRef: 'openai/test-model', baseUrl: server.baseUrl, env: { OPENAI_API_KEY: 'k' },
          settings: { strictTools: true }, seed: 4, params: task.params, dbPath,
        });
        assert.equal(summary.passed, 1);
        assert.equal(server.requests.length, 2);
        for (const recorded of server.requests) {
          const tools = (recorded.body as { tools: WireTool[] }).tools;
          assert.equal(tools.length, task.tools.length);
          assert.ok(tools.every((tool) => tool.function.strict === true));
        }
        const store = openResultsStore(dbPath);
        try {
          const run = store.getRun(summary.runId);
          assert.deepEqual(run.settings, { strictTools: true });
          assert.deepEqual(run.provenance.model.settings, { strictTools: true });
        } finally {
          store.close();
        }
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });
  });
});
