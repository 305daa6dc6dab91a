import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ConversationServer } from '../fakes/conversation-server.ts';
import { startConversationServer } from '../fakes/conversation-server.ts';
import { runCli, temporaryDirectory } from './run-cli.ts';

describe('request retries and timeouts through the CLI (OpenAI-compatible stand-in on 127.0.0.1)', () => {
  let server: ConversationServer;
  before(async () => { server = await startConversationServer({ toolTurns: 3, retryAfterMs: 1 }); });
  after(async () => { await server.close(); });

  test('429 once at every conversation state: all episodes scored, retries reported by cause in --json, the table and the HTML report', async () => {
    const directory = temporaryDirectory();
    server.setBehaviour('rate-limit-each-state-once');
    const before = server.requests.length;
    const result = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '3', '--json'], { cwd: directory });
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.episodes, 3);
    assert.equal(summary.infrastructureErrors, 0);
    // 4 model turns per episode (3 tool calls, then the answer), each rate limited once.
    assert.deepEqual(summary.retries, { 'provider.rate-limited': 12 });
    assert.equal(server.requests.length - before, 12 + 12);
    const report = await runCli(['report', summary.runId], { cwd: directory });
    assert.match(report.stdout, /\nretries 12: provider\.rate-limited 12\n/);
    const html = await runCli(['report', summary.runId, '--format', 'html'], { cwd: directory });
    assert.equal(html.code, 0, html.stderr);
    assert.match(html.stdout, /<caption>Model requests retried \(by cause; not scored\)<\/caption>.*<td>provider\.rate-limited<\/td><td[^>]*>12<\/td>/s);
  });

  test('the phrasing model is a model too: 429 once at every state, generate and run retry it; with --max-retries 0 the run says so', async () => {
    server.setBehaviour('rate-limit-each-state-once');
    const phrasing = ['--set', 'phrasing=model', '--phrasing-model', 'openai-compatible/writer'];
    const before = { requests: server.requests.length, limited: server.rateLimited() };
    const generated = await runCli(['generate', 'nestful', '--count', '2', ...phrasing, '--base-url', server.baseUrl], { cwd: temporaryDirectory() });
    assert.equal(generated.code, 0, generated.stderr);
    assert.equal(generated.stdout.trim().split('\n').length, 2);
    // One phrasing request per task, each refused once: 2 + 2 requests, no state answered twice.
    assert.equal(server.rateLimited() - before.limited, 2);
    assert.equal(server.requests.length - before.requests, 4);
    assert.ok([...server.answeredStates.values()].every((count) => count === 1), 'no phrasing request was answered twice');
    const run = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '3', ...phrasing, '--phrasing-base-url', server.baseUrl, '--json'], { cwd: temporaryDirectory() });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).passRate, 1);
    const refused = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '4', ...phrasing, '--phrasing-base-url', server.baseUrl, '--max-retries', '0'], { cwd: temporaryDirectory() });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /HTTP 429.*gave up after 1 attempt[\s\S]*raise --max-retries/);
  });

  test('a phrasing model that gives up stops generate with a fix for generate; started again, it asks only for the tasks not yet phrased', async () => {
    server.setBehaviour('rate-limit-each-state-once');
    const directory = temporaryDirectory();
    const command = ['generate', 'nestful', '--count', '3', '--seed', '77', '--set', 'phrasing=model', '--phrasing-model', 'openai-compatible/writer', '--phrasing-base-url', server.baseUrl, '--max-retries', '0'];
    // Each new request is refused once and answered the next time it is sent: every attempt gets one task further.
    const sent: number[] = [];
    let result: Awaited<ReturnType<typeof runCli>>;
    do {
      const before = server.requests.length;
      result = await runCli(command, { cwd: directory });
      sent.push(server.requests.length - before);
      if (result.code !== 0) {
        assert.equal(result.code, 2, result.stderr);
        assert.match(result.stderr, /^error: --phrasing-model openai-compatible\/writer: .*HTTP 429.*gave up after 1 attempt/);
        assert.match(result.stderr, /fix: run the same command again when its service answers \(the paraphrases already made are kept/);
        assert.doesNotMatch(result.stderr, /--resume|--concurrency/);
      }
    } while (result.code !== 0 && sent.length < 5);
    assert.equal(result.code, 0, result.stderr);
    // A task phrased once is not asked for again (without the cache: 1, 2, 3, 3).
    assert.deepEqual(sent, [1, 2, 2, 1]);
    const fresh = await runCli(command, { cwd: temporaryDirectory() });
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(result.stdout, fresh.stdout, 'the tasks made over four attempts are the tasks made in one');
    // Where generate keeps that cache cannot be written: the fix is generate's (it has no --db).
    const blocked = temporaryDirectory();
    writeFileSync(join(blocked, '.toolforge'), '');
    const refused = await runCli(command, { cwd: blocked });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /paraphrase cache '.*paraphrase-cache\.json' cannot be used: a part of the path is a file[\s\S]*fix: generate keeps it in \.toolforge\/ under the folder it runs in/);
    assert.doesNotMatch(refused.stderr, /--db/);
  });

  test('a hanging provider, with --episode-timeout shorter than --request-timeout: infrastructure errors, then --resume scores them', async () => {
    const directory = temporaryDirectory();
    server.setBehaviour('hang');
    const flags = ['--request-timeout', '800', '--max-retries', '1', '--episode-timeout', '500'];
    const result = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '2', ...flags, '--json'], { cwd: directory });
    // Nothing scored: exit code 3, and the summary still says why.
    assert.equal(result.code, 3, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.episodes, 0);
    assert.equal(summary.infrastructureErrors, 2);
    assert.deepEqual(summary.retries, { 'provider.timeout': 2 });
    assert.match(result.stderr, /2 x request to openai-compatible model 'stand-in' timed out after 800 ms \(gave up after 2 attempts\)/);

    server.setBehaviour('answer');
    const resumed = await runCli(['run', '--resume', summary.runId, ...flags, '--json'], { cwd: directory });
    assert.equal(resumed.code, 0, resumed.stderr);
    const finished = JSON.parse(resumed.stdout);
    assert.equal(finished.episodes, 2);
    assert.equal(finished.infrastructureErrors, 0);
    // The timeouts of the first attempt stay counted after the resumed run scored the episodes.
    assert.deepEqual(finished.retries, { 'provider.timeout': 2 });
  });

  test('a service that is down stops the run after --stop-after-errors episodes in a row, not after every task; --resume then scores the rest', async () => {
    const directory = temporaryDirectory();
    server.setBehaviour('unavailable');
    const flags = ['--max-retries', '1', '--concurrency', '1'];
    const result = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '40', '--stop-after-errors', '5', ...flags], { cwd: directory });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /the run stopped: the last 5 episodes ended in infrastructure errors, with nothing scored between them; the last one: openai-compatible returned HTTP 503 for model 'stand-in'.*gave up after 2 attempts/);
    // The provider error's own fix leads, once, then how to continue.
    assert.equal(result.stderr.match(/fix: /g)?.length, 1, result.stderr);
    const runId = /toolforge run --resume (\S+)/.exec(result.stderr)?.[1];
    assert.ok(runId, result.stderr);
    const listed = await runCli(['runs', '--json'], { cwd: directory });
    const run = (JSON.parse(listed.stdout) as { id: string; status: string; episodes: Record<string, number> }[]).find((candidate) => candidate.id === runId);
    assert.deepEqual({ status: run?.status, episodes: run?.episodes }, { status: 'failed', episodes: { scored: 0, 'infrastructure-error': 5, cancelled: 0 } });

    server.setBehaviour('answer');
    const resumed = await runCli(['run', '--resume', runId, ...flags, '--json'], { cwd: directory });
    assert.equal(resumed.code, 0, resumed.stderr);
    const finished = JSON.parse(resumed.stdout);
    assert.deepEqual({ episodes: finished.episodes, infrastructureErrors: finished.infrastructureErrors }, { episodes: 40, infrastructureErrors: 0 });
  });

  test('a worker stopped by a down service names the command that continues it, in the database the run is in', async () => {
    const directory = temporaryDirectory();
    server.setBehaviour('unavailable');
    const queued = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '10', '--workers-only', '--db', 'team.db'], { cwd: directory });
    assert.equal(queued.code, 0, queued.stderr);
    const runId = /toolforge worker --run (\S+) --db team\.db/.exec(queued.stdout)?.[1];
    assert.ok(runId, queued.stdout);
    const worker = await runCli(['worker', '--run', runId, '--db', 'team.db', '--stop-after-errors', '3', '--max-retries', '0', '--concurrency', '1'], { cwd: directory });
    assert.equal(worker.code, 2, worker.stderr);
    assert.match(worker.stderr, /the last 3 episodes ended in infrastructure errors/);
    assert.ok(worker.stderr.includes(`toolforge worker --run ${runId} --db team.db`), worker.stderr);
    server.setBehaviour('answer');
  });

  test('a sweep stopped by a down service names the resume of its run in the sweep\'s database', async () => {
    const directory = temporaryDirectory();
    server.setBehaviour('unavailable');
    const sweep = await runCli(['sweep', 'funcgen', '--grid', 'core=4,5', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '6',
      '--stop-after-errors', '3', '--max-retries', '0', '--concurrency', '1', '--db', 's.db'], { cwd: directory });
    assert.equal(sweep.code, 2, sweep.stderr);
    assert.match(sweep.stderr, /the last 3 episodes ended in infrastructure errors/);
    assert.match(sweep.stderr, /toolforge run --resume funcgen-\S+ --db s\.db/);
    server.setBehaviour('answer');
  });

  test('when the errors in a row reach --stop-after-errors at the last planned episode, the run ends as any run that scored nothing', async () => {
    const directory = temporaryDirectory();
    server.setBehaviour('unavailable');
    const ended = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '5', '--stop-after-errors', '5', '--max-retries', '0', '--concurrency', '1', '--json'], { cwd: directory });
    assert.equal(ended.code, 3, ended.stderr);
    const summary = JSON.parse(ended.stdout) as { episodes: number; infrastructureErrors: number; passRate: number | null; passRateCI95: unknown };
    assert.deepEqual([summary.episodes, summary.infrastructureErrors], [0, 5]);
    // Nothing scored: no pass rate, as the table says ("none"), not a rate of 0.
    assert.deepEqual([summary.passRate, summary.passRateCI95], [null, null]);
    assert.match(ended.stderr, /no episode scored: 5 infrastructure errors, 0 episodes not run/);
    assert.doesNotMatch(ended.stderr, /the run stopped/);
  });

  test('infrastructure errors that differ only in their numbers are one cause; the fix says --resume once', async () => {
    server.setBehaviour('unavailable');
    // Each error names its own backoff (jittered): 'waiting 896 ms more', 'waiting 966 ms more', ...
    const result = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '6',
      '--max-retry-wait', '300', '--stop-after-errors', '0', '--concurrency', '1'], { cwd: temporaryDirectory() });
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /infrastructure errors \(not scored, rerun by --resume\):\n {2}6 x (e\.g\. )?openai-compatible returned HTTP 503 .*\(not retried: waiting \d+ ms more would exceed the run's retry wait budget of 300 ms/);
    assert.doesNotMatch(result.stderr, /other causes/);
    assert.equal(result.stderr.match(/--resume/g)?.length, 2, result.stderr);
    assert.match(result.stderr, /resume the run later with --resume \(or raise --max-retry-wait\)/);
    server.setBehaviour('answer');
  });

  test('a sweep shares one wait budget across its runs, and its give-up message says it is the sweep\'s', async () => {
    server.setBehaviour('unavailable');
    const result = await runCli(['sweep', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--grid', 'core=4,5', '--count', '1',
      '--max-retry-wait', '300', '--stop-after-errors', '0', '--concurrency', '1'], { cwd: temporaryDirectory() });
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /would exceed the sweep's retry wait budget of 300 ms/);
    assert.doesNotMatch(result.stderr, /the run's retry wait budget/);
    server.setBehaviour('answer');
  });

  test('bad retry and timeout flags are refused before anything runs', async () => {
    for (const [flag, value] of [['--request-timeout', '0'], ['--max-retries', '-1'], ['--episode-timeout', 'soon'], ['--max-retry-wait', '1.5'], ['--stop-after-errors', '-2']]) {
      const result = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '1', flag, value], { cwd: temporaryDirectory() });
      assert.notEqual(result.code, 0, `${flag} ${value}`);
      assert.match(result.stderr, new RegExp(`${flag}`));
    }
    // A time is asked for as one, with its unit: not as "a whole number ... e.g. 7".
    const wait = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '1', '--max-retry-wait', '30s'], { cwd: temporaryDirectory() });
    assert.match(wait.stderr, /--max-retry-wait <ms>' argument '30s' is invalid\. expected milliseconds, a whole number from 0 \(no waiting\), e\.g\. 1800000/);
  });

  test('a timeout past what a Node timer holds (2^31 - 1 ms) is refused, not run as a 1 ms timeout', async () => {
    const cwd = temporaryDirectory();
    for (const [command, flag] of [['run', '--request-timeout'], ['run', '--episode-timeout'], ['serve', '--episode-timeout'], ['worker', '--lease']]) {
      const args = command === 'worker' ? ['worker', '--run', 'r', flag, '2147483648'] : [command, 'funcgen', ...(command === 'run' ? ['--model', 'builtin/oracle'] : []), '--count', '1', flag, '2147483648'];
      const result = await runCli(args, { cwd });
      assert.equal(result.code, 2, `${command} ${flag}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`${flag} <ms>' argument '2147483648' is invalid\\. expected milliseconds from 1 to 2147483647 \\(24\\.8 days\\)`));
    }
    // The longest a timer holds is accepted, and the run passes: its episodes were not cut short at once.
    const longest = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--count', '2', '--episode-timeout', '2147483647', '--request-timeout', '2147483647', '--json'], { cwd });
    assert.equal(longest.code, 0, longest.stderr);
    assert.equal((JSON.parse(longest.stdout) as { passRate: number }).passRate, 1);
    // And against a provider, whose client is given a little more than the request timeout as its own backstop.
    server.setBehaviour('answer');
    const provider = await runCli(['run', 'funcgen', '--model', 'openai-compatible/stand-in', '--base-url', server.baseUrl, '--count', '2', '--request-timeout', '2147483647', '--json'], { cwd });
    assert.equal(provider.code, 0, provider.stderr);
    assert.doesNotMatch(provider.stderr, /TimeoutOverflowWarning/);
    const summary = JSON.parse(provider.stdout) as { episodes: number; infrastructureErrors: number; retries: Record<string, number> };
    assert.deepEqual([summary.episodes, summary.infrastructureErrors, summary.retries], [2, 0, {}]);
  });
});
