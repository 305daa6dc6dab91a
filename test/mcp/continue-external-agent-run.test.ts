/**
 * An external agent's run (`mcp/<name>`) whose episodes ended in infrastructure errors is continued with its agent:
 * `run --resume <run> --agent-command <cmd>` for an agent command (the hint repeats the command), `serve --resume`
 * for MCP clients. Without its agent, with another model, or by a worker, a resume is refused with the command that
 * continues it; and `serve --resume` is refused for a run that is not an external agent's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { agentCommandName } from '../../src/mcp/index.ts';
import { openResultsStore } from '../../src/store/results-store.ts';
import { binPath, runCli, temporaryDirectory } from '../e2e/run-cli.ts';

const agentScript = resolve(import.meta.dirname, '../fixtures/mcp-scripted-agent.mjs');

/** An agent command that crashes (exit 3) while its mode file says so, and otherwise submits empty answers. */
function fixableAgent(directory: string): { command: string; fix(): void } {
  const modeFile = join(directory, 'agent-mode');
  const script = join(directory, 'fixable-agent.mjs');
  writeFileSync(modeFile, 'crash');
  writeFileSync(script, `import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
if (readFileSync(${JSON.stringify(modeFile)}, 'utf8') === 'crash') process.exit(3);
const child = spawnSync(process.execPath, [${JSON.stringify(agentScript)}, '--policy', 'nothing'], { stdio: 'inherit' });
process.exit(child.status ?? 1);
`);
  return { command: `node ${script}`, fix: () => writeFileSync(modeFile, 'fixed') };
}

function episodeStates(dbPath: string, runId: string): string[] {
  const store = openResultsStore(dbPath);
  try {
    return store.listEpisodes(runId).map((episode) => (episode.status === 'scored' ? 'scored' : episode.error?.code ?? episode.status));
  } finally {
    store.close();
  }
}

describe('naming an agent command', () => {
  test('the default name is the script a launcher runs, not the launcher: two python agents stay apart in reports', () => {
    for (const [command, name] of [
      ['python agent.py', 'agent.py'],
      ['python3 -u ./agents/Solver.py --fast', 'solver.py'],
      ['OPENAI_API_KEY=x uv run python agents/solver.py', 'solver.py'],
      ['node /tmp/x/fixable-agent.mjs', 'fixable-agent.mjs'],
      ['"/usr/local/bin/node" "/opt/my agent/run.mjs"', 'run.mjs'],
      ['npx my-mcp-agent --model gpt', 'my-mcp-agent'],
      ['./my-agent', 'my-agent'],
      ['claude -p --mcp-config x.json', 'claude'],
      ['exit 3', 'exit'],
      ['bash', 'bash'],
    ] as const) assert.equal(agentCommandName(command), name, command);
  });

  test('--agent-name names the model; without --agent-command it is refused', async () => {
    const directory = temporaryDirectory();
    const named = await runCli(['run', 'funcgen', '--count', '1', '--agent-command', 'exit 0', '--agent-name', 'My Agent v2', '--db', 'r.db', '--json'], { cwd: directory });
    assert.equal(named.code, 0, named.stderr);
    assert.equal((JSON.parse(named.stdout) as { model: string }).model, 'mcp/my-agent-v2');
    const alone = await runCli(['run', 'funcgen', '--model', 'builtin/oracle', '--agent-name', 'x'], { cwd: directory });
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--agent-name names the --agent-command's model, but no --agent-command is given/);
    // A name that would leave no letter or digit in the model id is refused, for an agent command and a served client.
    for (const args of [['run', 'funcgen', '--agent-command', 'exit 0', '--agent-name', ''], ['serve', 'funcgen', '--client-name', '!!!']]) {
      const result = await runCli(args, { cwd: directory });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /expected a name with a letter or digit/);
    }
  });
});

describe('continuing an external agent run', () => {
  test('run --agent-command: the hint repeats the command; a resume without it, with another model or by a worker is refused; with it, the fixed agent is scored', async () => {
    const directory = temporaryDirectory();
    const agent = fixableAgent(directory);
    const first = await runCli(['run', 'funcgen', '--count', '2', '--set', 'core=3', '--set', 'depth=1', '--agent-command', agent.command, '--db', 'r.db'], { cwd: directory });
    assert.equal(first.code, 3, first.stderr);
    const runId = /finish them with: toolforge run --resume (\S+)/.exec(first.stdout)?.[1] ?? '';
    assert.match(first.stdout, new RegExp(`finish them with: toolforge run --resume ${runId} --agent-command 'node [^']+fixable-agent\\.mjs' --db r\\.db`));
    assert.deepEqual(episodeStates(join(directory, 'r.db'), runId), ['agent.disconnected', 'agent.disconnected']);

    const withoutAgent = await runCli(['run', '--resume', runId, '--db', 'r.db'], { cwd: directory });
    assert.equal(withoutAgent.code, 2, withoutAgent.stderr);
    assert.match(withoutAgent.stderr, new RegExp(`run '${runId}' evaluated an external agent \\(mcp/fixable-agent.mjs\\), which ToolForge cannot call by itself`));
    assert.match(withoutAgent.stderr, /fix: continue it with its agent: toolforge run --resume \S+ --agent-command 'node [^']+fixable-agent\.mjs'/);

    const otherAgent = await runCli(['run', '--resume', runId, '--db', 'r.db', '--agent-command', 'sleep 1', '--agent-name', 'other'], { cwd: directory });
    assert.equal(otherAgent.code, 2, otherAgent.stderr);
    assert.match(otherAgent.stderr, new RegExp(`run '${runId}' evaluated mcp/fixable-agent\\.mjs, not mcp/other`));

    const worker = await runCli(['worker', '--run', runId, '--db', 'r.db'], { cwd: directory });
    assert.equal(worker.code, 2, worker.stderr);
    assert.match(worker.stderr, /evaluated an external agent \(mcp\/fixable-agent\.mjs\)/);

    agent.fix();
    const resumed = await runCli(['run', '--resume', runId, '--db', 'r.db', '--agent-command', agent.command, '--json'], { cwd: directory });
    assert.equal(resumed.code, 0, resumed.stderr);
    const summary = JSON.parse(resumed.stdout) as { model: string; episodes: number; infrastructureErrors: number; passRate: number };
    assert.deepEqual([summary.model, summary.episodes, summary.infrastructureErrors, summary.passRate], ['mcp/fixable-agent.mjs', 2, 0, 0]);
    assert.deepEqual(episodeStates(join(directory, 'r.db'), runId), ['scored', 'scored']);
  });

  test('a run of a model ToolForge calls is not continued by an agent command, nor served again', async () => {
    const directory = temporaryDirectory();
    const oracle = await runCli(['run', 'funcgen', '--count', '1', '--model', 'builtin/oracle', '--db', 'r.db', '--json'], { cwd: directory });
    const runId = (JSON.parse(oracle.stdout) as { runId: string }).runId;
    const agentResume = await runCli(['run', '--resume', runId, '--db', 'r.db', '--agent-command', 'sleep 1'], { cwd: directory });
    assert.equal(agentResume.code, 2, agentResume.stderr);
    assert.match(agentResume.stderr, new RegExp(`run '${runId}' evaluated builtin/oracle, not mcp/sleep`));
    assert.match(agentResume.stderr, /fix: drop --agent-command to continue it with builtin\/oracle/);
    const served = await runCli(['serve', '--resume', runId, '--db', 'r.db'], { cwd: directory });
    assert.equal(served.code, 2, served.stderr);
    assert.match(served.stderr, new RegExp(`run '${runId}' evaluated builtin/oracle, not an external agent`));
    assert.match(served.stderr, new RegExp(`fix: continue it with 'toolforge run --resume ${runId} --db r\\.db'`));
  });

  test('serve --resume: what it cannot change is refused before it listens', async () => {
    const directory = temporaryDirectory();
    for (const [args, message] of [
      [['--count', '3'], /--count cannot change them/],
      [['--set', 'core=3', '--mode', 'react'], /--set, --mode cannot change them/],
      [['--client-name', 'other'], /--client-name cannot change them/],
      [['--stdio', '--port', '9999'], /--stdio serves on stdin\/stdout/],
    ] as const) {
      const result = await runCli(['serve', '--resume', 'latest', '--db', 'r.db', ...args], { cwd: directory });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    }
    const missing = await runCli(['serve', '--resume', 'latest', '--db', 'r.db'], { cwd: directory });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /r\.db/);
  });

  test('serve --resume: a served run whose client timed out is served again to a client under any name, and keeps its model', async () => {
    const directory = temporaryDirectory();
    const dbPath = join(directory, 'r.db');
    const serveOnce = (args: string[], policy: string): Promise<{ code: number | null; stdout: string; stderr: string }> => new Promise((resolveServe) => {
      const serve = spawn(process.execPath, [binPath, 'serve', ...args, '--db', dbPath], { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let client: ReturnType<typeof spawn> | undefined;
      serve.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
      serve.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const url = /over MCP at (\S+)/.exec(stderr)?.[1];
        if (url && !client) client = spawn(process.execPath, [agentScript, '--url', url, '--policy', policy, '--sessions', 'all'], { stdio: 'ignore' });
      });
      serve.once('exit', (code) => {
        client?.kill();
        resolveServe({ code, stdout, stderr });
      });
    });
    const first = await serveOnce(['funcgen', '--count', '2', '--set', 'core=3', '--set', 'depth=1', '--client-name', 'my-agent', '--episode-timeout', '1000'], 'hang');
    // Nothing scored: exit 3, as run gives.
    assert.equal(first.code, 3, first.stderr);
    const runId = /serve them again with: toolforge serve --resume (\S+) --db/.exec(first.stdout)?.[1] ?? '';
    assert.notEqual(runId, '', first.stdout);
    assert.ok(episodeStates(dbPath, runId).every((state) => state === 'agent.timeout'));

    const again = await serveOnce(['--resume', 'latest', '--json'], 'nothing');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, new RegExp(`serving the 2 unfinished episodes of run ${runId} \\(mcp/my-agent\\)`));
    const summary = JSON.parse(again.stdout) as { runId: string; model: string; episodes: number; infrastructureErrors: number };
    assert.deepEqual([summary.runId, summary.model, summary.episodes, summary.infrastructureErrors], [runId, 'mcp/my-agent', 2, 0]);
    assert.deepEqual(episodeStates(dbPath, runId), ['scored', 'scored']);
    const store = openResultsStore(dbPath);
    try {
      const resumes = store.getRun(runId).provenance.resumes ?? [];
      assert.deepEqual(resumes.map((resume) => resume.cliArgs.slice(0, 3)), [['serve', '--resume', 'latest']]);
      assert.equal(store.getRun(runId).provenance.cliArgs[0], 'serve', 'a served run records its command line');
    } finally {
      store.close();
    }
  });
});
