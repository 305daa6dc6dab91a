/**
 * What a model writes, however malformed, is scored as the model's: a tool call without a name, a refusal, an answer
 * cut at the token limit. Each is an episode with its termination, failure code and a warning that says why.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openResultsStore } from '../../src/store/results-store.ts';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import type { VendorFakeServer } from '../fakes/fake-reply.ts';
import { startOpenAIFakeServer } from '../fakes/openai-server.ts';
import { startGoogleFakeServer } from '../fakes/google-server.ts';
import { runCli, temporaryDirectory } from './run-cli.ts';

describe('malformed model output through the CLI (fake OpenAI on 127.0.0.1)', () => {
  let server: VendorFakeServer;
  before(async () => { server = await startOpenAIFakeServer(); });
  after(async () => { await server.close(); });

  const runOne = async (): Promise<EpisodeRecord> => {
    const cwd = temporaryDirectory();
    const result = await runCli(['run', 'funcgen', '--model', 'openai/test-model', '--base-url', server.baseUrl, '--count', '1', '--max-retries', '0', '--json'],
      { cwd, env: { ...process.env, OPENAI_API_KEY: 'k' } });
    assert.notEqual(result.code, 2, result.stderr);
    const store = openResultsStore(join(cwd, '.toolforge', 'results.db'), { readOnly: true });
    try {
      const [episode] = store.listEpisodes(store.latestRun()!.id);
      return episode;
    } finally {
      store.close();
    }
  };

  test('a tool call with no name is a call to an unknown tool, scored; the run goes on to the answer', async () => {
    server.reply(
      { type: 'raw', status: 200, body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 7, type: 'function', function: { arguments: '{}' } }] }, finish_reason: 'tool_calls' }] }) },
      { type: 'message', text: 'The answer is 3' },
    );
    const episode = await runOne();
    assert.equal(episode.status, 'scored');
    assert.equal(episode.termination, 'final-answer');
    assert.equal(episode.score?.failureCounts?.['tool.unknown'], 1);
    assert.equal(episode.messages.find((message) => message.role === 'tool')?.toolCallId, '7');
  });

  test('a refusal ends the episode as content-filter, the refusal kept as a warning', async () => {
    server.reply({ type: 'raw', status: 200, body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: null, refusal: 'I will not.' }, finish_reason: 'stop' }] }) });
    const episode = await runOne();
    assert.equal(episode.status, 'scored');
    assert.equal(episode.termination, 'content-filter');
    assert.deepEqual(episode.warnings, [{ turn: 1, type: 'other', message: 'the model refused: I will not.' }]);
  });

  test('an answer cut at the token limit is scored as it is, with a warning naming --max-output-tokens', async () => {
    server.reply({ type: 'message', text: 'The answer is', finish: 'length' });
    const episode = await runOne();
    assert.equal(episode.status, 'scored');
    assert.equal(episode.score?.passed, false);
    assert.deepEqual(episode.warnings, [{ turn: 1, type: 'finish-reason', message: 'the answer was cut at the output token limit (finish reason length); raise --max-output-tokens to let it finish' }]);
  });

  test('a function call Gemini could not read (MALFORMED_FUNCTION_CALL) ends the episode as output-unparsable, with a warning', async () => {
    const google = await startGoogleFakeServer();
    try {
      google.reply({ type: 'raw', status: 200, body: JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] }) });
      const cwd = temporaryDirectory();
      const result = await runCli(['run', 'funcgen', '--model', 'google/test-model', '--base-url', google.baseUrl, '--count', '1', '--max-retries', '0', '--json'],
        { cwd, env: { ...process.env, GEMINI_API_KEY: 'k' } });
      assert.equal(result.code, 0, result.stderr);
      const store = openResultsStore(join(cwd, '.toolforge', 'results.db'), { readOnly: true });
      const [episode] = store.listEpisodes(store.latestRun()!.id);
      store.close();
      assert.equal(episode.termination, 'output-unparsable');
      assert.equal(episode.score?.failure, 'output.unparsable');
      assert.match(episode.warnings.map((warning) => warning.message).join('\n'), /the provider could not read what the model wrote \(finish reason error/);
    } finally {
      await google.close();
    }
  });

  test('an answer longer than the stored transcript keeps its score on rescore, and the rescore says so', async () => {
    const cwd = temporaryDirectory();
    const env = { ...process.env, OPENAI_API_KEY: 'k' };
    const first = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '1', '--json'], { cwd, env });
    const target = (JSON.parse((await runCli(['export', (JSON.parse(first.stdout) as { runId: string }).runId], { cwd })).stdout.split('\n')[1]) as { task: { expected: { target: { value: number } } } }).task.expected.target.value;
    // The answer is at the end of 112,000 characters: past the 65,536 stored.
    server.reply({ type: 'message', text: `${'Let me think. '.repeat(8000)}\nThe answer is ${target}` });
    const run = await runCli(['run', 'funcgen', '--model', 'openai/test-model', '--base-url', server.baseUrl, '--count', '1', '--json'], { cwd, env });
    const runId = (JSON.parse(run.stdout) as { runId: string; passRate: number }).runId;
    assert.equal((JSON.parse(run.stdout) as { passRate: number }).passRate, 1);
    const rescored = await runCli(['rescore', runId, '--json'], { cwd, env });
    assert.equal(rescored.code, 0, rescored.stderr);
    const summary = JSON.parse(rescored.stdout) as { passRate: number; keptScores: number };
    assert.deepEqual([summary.passRate, summary.keptScores], [1, 1]);
    assert.match(rescored.stderr, /note: 1 episode\(s\) kept the score they had: a message of their transcript was stored cut at 65,536 characters/);
  });
});
