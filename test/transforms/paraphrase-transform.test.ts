/**
 * `--transform perturb:paraphrase` (issue 12 item 2): the query is paraphrased by the `--phrasing-model`, a real
 * OpenAI-wire stand-in server on 127.0.0.1 here, with the reference prompt; only `task.query` (inside the prompt)
 * changes; the answers are cached by a hash of the model and the exact request, so a rerun sends 0 requests and
 * gives identical tasks. Library (generateTasks with a file cache) and CLI (`run --baseline`, cache beside the
 * results database).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { canonicalJson } from '../../src/core/json.ts';
import { createModelSource } from '../../src/models/registry.ts';
import { generateTasks } from '../../src/runner/generate-tasks.ts';
import { resolveKnobs } from '../../src/suites/knob.ts';
import { getSuite } from '../../src/suites/registry.ts';
import { createFileParaphraseCache, paraphraseSystemPrompt, paraphraseUserPrompt } from '../../src/transforms/perturb/model-paraphrase.ts';
import { applyTransforms, parseTransformRequest } from '../../src/transforms/registry.ts';
import { runCli, temporaryDirectory } from '../e2e/run-cli.ts';
import type { VendorFakeServer } from '../fakes/fake-reply.ts';
import { startOpenAIFakeServer } from '../fakes/openai-server.ts';

let server: VendorFakeServer;
before(async () => { server = await startOpenAIFakeServer(); });
after(async () => { await server.close(); });

const suite = getSuite('nestful');
const params = resolveKnobs(suite.id, suite.knobs, {});
const transforms = [parseTransformRequest('perturb:paraphrase')];

function chatRequests(since: number): { model: string; temperature: number; messages: { role: string; content: string }[] }[] {
  return server.requests.slice(since).filter((request) => request.path === '/v1/chat/completions').map((request) => request.body as never);
}

describe('perturb:paraphrase', () => {
  test('library: one request per task with the reference prompt; query only rewritten; oracle 100%; a rerun sends 0 requests, same bytes', async () => {
    const cachePath = join(temporaryDirectory(), 'paraphrases.json');
    const phrasingModel = createModelSource('openai-compatible/paraphraser', { baseUrl: server.baseUrl, env: {} });
    const baseline = await generateTasks(suite, { seed: 4, count: 2, params, validate: false });
    server.reply({ type: 'message', text: 'Paraphrase: "Could you work out the first one?"' }, { type: 'message', text: 'Please work out the second one.' });
    const sent = server.requests.length;
    // generateTasks validates: builtin/oracle still solves each paraphrased task.
    const first = await generateTasks(suite, { seed: 4, count: 2, params, transforms, phrasingModel, paraphraseCache: createFileParaphraseCache(cachePath) });
    const requests = chatRequests(sent);
    assert.equal(requests.length, 2);
    requests.forEach((request, index) => {
      assert.equal(request.model, 'paraphraser');
      assert.equal(request.temperature, 0);
      assert.deepEqual(request.messages.map((message) => [message.role, message.content]), [
        ['system', paraphraseSystemPrompt], ['user', paraphraseUserPrompt(baseline[index].query ?? '')],
      ]);
    });
    // The label and wrapping quotes the model added are cleaned off.
    assert.deepEqual(first.map((task) => task.query), ['Could you work out the first one?', 'Please work out the second one.']);
    first.forEach((task, index) => {
      const source = baseline[index];
      assert.deepEqual(task.origin?.transforms[0].changes, { kind: 'paraphrase', model: 'openai-compatible/paraphraser', from: source.query, to: task.query });
      assert.ok(task.prompt.some((message) => message.content.includes(task.query ?? '?')));
      assert.ok(!task.prompt.some((message) => message.content.includes(source.query ?? '?')));
      assert.deepEqual([task.tools, task.expected, task.modes], [source.tools, source.expected, source.modes]);
    });
    assert.equal(readFileSync(cachePath, 'utf8').trimEnd().split('\n').length, 2, 'one line per paraphrase');

    const again = await generateTasks(suite, { seed: 4, count: 2, params, transforms, phrasingModel, paraphraseCache: createFileParaphraseCache(cachePath) });
    assert.equal(server.requests.length - sent, 2, 'the rerun sent no request');
    assert.equal(canonicalJson(again), canonicalJson(first));
  });

  test('without a model: refused with the fix, by the library and by the synchronous applyTransforms', async () => {
    await assert.rejects(generateTasks(suite, { seed: 4, count: 1, params, transforms, validate: false }),
      (error: unknown) => error instanceof ConfigError && /needs a model to paraphrase with[\s\S]*fix: pass --phrasing-model <ref>/.test(error.message));
    const [task] = await generateTasks(suite, { seed: 4, count: 1, params, validate: false });
    assert.throws(() => applyTransforms([task], transforms, 4), (error: unknown) => error instanceof ConfigError && /needs a model to paraphrase with/.test(error.message));
  });

  test('CLI: run --transform perturb:paraphrase --phrasing-model ... --baseline; the cache beside the results database; rerun: 0 requests', async () => {
    const cwd = temporaryDirectory();
    const args = ['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--mode', 'calls', '--seed', '5', '--transform', 'perturb:paraphrase',
      '--phrasing-model', 'openai-compatible/writer', '--phrasing-base-url', server.baseUrl, '--baseline', '--json'];
    server.reply({ type: 'message', text: 'First task, said otherwise.' }, { type: 'message', text: 'Second task, said otherwise.' });
    const sent = server.requests.length;
    const first = await runCli(args, { cwd });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(chatRequests(sent).length, 2);
    const summary = JSON.parse(first.stdout) as { passRate: number; paired: { transforms: string; baseline: { passRate: number }; treatment: { passRate: number }; flips: { pairs: number; passToFail: string[]; failToPass: string[]; mcnemarPValue: number }; groups: { group: string }[] } };
    assert.deepEqual([summary.paired.transforms, summary.paired.baseline.passRate, summary.paired.treatment.passRate], ['perturb:kind=paraphrase', 1, 1]);
    assert.deepEqual([summary.paired.flips.pairs, summary.paired.flips.passToFail, summary.paired.flips.failToPass, summary.paired.flips.mcnemarPValue], [2, [], [], 1]);
    assert.deepEqual(summary.paired.groups.map((group) => group.group), ['perturb:paraphrase']);
    assert.ok(existsSync(join(cwd, '.toolforge', 'paraphrase-cache.json')));

    const second = await runCli(args, { cwd });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(server.requests.length - sent, 2, 'the rerun asked the paraphraser nothing');
    const exported = (await runCli(['export', (JSON.parse(second.stdout) as { runId: string }).runId], { cwd })).stdout;
    assert.match(exported, /First task, said otherwise\./);

    const refused = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '1', '--mode', 'calls', '--transform', 'perturb:paraphrase'], { cwd });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /perturb:paraphrase needs a model to paraphrase with[\s\S]*fix: pass --phrasing-model <ref>/);
  });
});
