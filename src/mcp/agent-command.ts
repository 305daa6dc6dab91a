/**
 * `--agent-command "<cmd>"`: an external agent process per episode. Each episode gets its own MCP
 * endpoint (streamable HTTP on 127.0.0.1), and the command runs in a shell with
 *   TOOLFORGE_MCP_URL   the endpoint's URL,
 *   TOOLFORGE_TASK_ID   the task's id,
 * and the task's request on stdin. The process exiting 0 without submitting an answer is an episode
 * without an answer (scored); exiting non-zero or being killed before submitting is an infrastructure
 * error (`agent.disconnected`); past the time limit it is killed (`agent.timeout`).
 */
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { ToolForgeError } from '../core/errors.ts';
import type { AgentSource } from '../agents/spec.ts';
import { EpisodeBroker } from './episode-broker.ts';
import { createMcpAgentSource } from './mcp-agent.ts';
import { modelName } from './model-name.ts';

const stderrTailChars = 2_000;

export type AgentCommandOptions = {
  command: string;
  /** The `mcp/<name>` of the run's model; default `command`. */
  name?: string;
  /** Extra environment for the process (default: this process's). */
  env?: Record<string, string | undefined>;
  cwd?: string;
};

/** Programs that run the agent rather than being it: the agent is the script they are given. */
const launchers = new Set(['python', 'python3', 'node', 'bun', 'deno', 'ruby', 'perl', 'php', 'java', 'bash', 'sh', 'zsh', 'npx', 'uv', 'uvx', 'poetry', 'pipenv', 'tsx', 'exec', 'env', 'time', 'nice', 'run', 'tool']);

/**
 * The default name of an agent command's model (`mcp/<name>`): the first word that is not an environment
 * assignment, an option, or a launcher (`OPENAI_API_KEY=x uv run python -u agents/solver.py` -> `solver.py`), as
 * a model id. Two agents run by the same interpreter get their own names, so reports keep them apart.
 */
export function agentCommandName(command: string): string {
  const words = shellWords(command);
  const program = words.find((word) => word !== '' && !/^\w+=/.test(word) && !word.startsWith('-') && !launchers.has(basename(word).replace(/\d+(\.\d+)*$/, '')));
  return modelName(basename(program ?? words[0] ?? 'command'));
}

/** A command line's words as a POSIX shell splits them (quotes and backslashes), enough to find its program. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"\\])+/g)) {
    words.push(match[0].replace(/'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)/g, (_, single, double, escaped) => single ?? (double === undefined ? escaped : double.replace(/\\(.)/g, '$1'))));
  }
  return words;
}

export function createAgentCommandSource(options: AgentCommandOptions): AgentSource {
  return createMcpAgentSource(options.name ?? 'command', async (episode, signal) => {
    const broker = new EpisodeBroker();
    // The MCP SDK is loaded by the first agent episode (~95 ms), not by every command that can start one.
    const [{ serveEpisodesOverHttp }, { endedEpisodeText, requestOf }] = await Promise.all([import('./mcp-http-endpoint.ts'), import('./episode-mcp-server.ts')]);
    const endpoint = await serveEpisodesOverHttp(broker, {
      // This endpoint serves this one episode: the run's others go to new processes of the command, not to this one.
      endedMessage: (ended) => `${endedEpisodeText(ended)}. The agent command has nothing more to do here, so exit: ToolForge starts the agent command again, with a new endpoint, for each other episode of the run.`,
    });
    // The one episode of this endpoint, claimed by the first session the process opens.
    void broker.offer(episode, signal).catch(() => {});
    broker.close();
    const child = spawn(options.command, {
      shell: true, detached: true, cwd: options.cwd, stdio: ['pipe', 'ignore', 'pipe'],
      env: { ...(options.env ?? process.env), TOOLFORGE_MCP_URL: endpoint.url, TOOLFORGE_TASK_ID: episode.task.id },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-stderrTailChars); });
    child.stdin.on('error', () => {});
    child.stdin.end(`${requestOf(episode)}\n`);
    const exited = new Promise<void>((resolve) => {
      child.once('error', (error) => {
        episode.fail(new ToolForgeError('agent.disconnected', `the agent command could not start: ${error.message}`, { fix: 'check --agent-command' }));
        resolve();
      });
      child.once('exit', (code, exitSignal) => {
        if (code === 0) episode.endWithoutAnswer();
        else {
          episode.fail(new ToolForgeError('agent.disconnected', `task '${episode.task.id}': the agent command exited with ${code === null ? `signal ${exitSignal}` : `code ${code}`} before submitting an answer${stderr ? `; its stderr ends: ${stderr.trim()}` : ''}`, {
            fix: 'fix the agent; the episode is not scored, and `toolforge run --resume <run-id> --agent-command <cmd>` reruns it',
          }));
        }
        resolve();
      });
    });
    return {
      async detach() {
        if (child.exitCode === null && child.signalCode === null) {
          // The shell's whole process group: the agent is usually a grandchild of the shell.
          killGroup(child.pid, 'SIGTERM');
          await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
        }
        // Whatever the agent left in its process group goes with it: a background job (`sleep 20 &`), or a process
        // that ignored SIGTERM after its shell died; left alive, they kept the run from ever exiting.
        killGroup(child.pid, 'SIGKILL');
        // A process that left the group (setsid) may still hold the stderr pipe open: it is not read any more.
        child.stderr.destroy();
        // The process is gone: a session it left open will not close itself.
        await endpoint.close(0);
      },
    };
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
