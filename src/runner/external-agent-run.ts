/**
 * A run of an external agent (model `mcp/<name>`: an `--agent-command` process per episode, or the clients of
 * `toolforge serve`) can only be continued with that agent: ToolForge cannot call it by itself, and one run holds
 * one model's episodes. A resume or a worker without it, or with another model, is refused with the command that
 * continues it.
 */
import type { AgentSource } from '../agents/spec.ts';
import { ConfigError } from '../core/errors.ts';
import { shellArgument } from '../core/shell-argument.ts';
import { mcpProvider } from '../mcp/mcp-agent.ts';
import type { StoredRun } from '../store/stored-run.ts';

export function isExternalAgentRun(run: Pick<StoredRun, 'model'>): boolean {
  return run.model.startsWith(`${mcpProvider}/`);
}

/** The `--agent-command` a command line gave (`--agent-command <cmd>` or `--agent-command=<cmd>`), if any. */
export function agentCommandOf(cliArgs: readonly string[]): string | undefined {
  let command: string | undefined;
  cliArgs.forEach((word, index) => {
    if (word === '--agent-command' && index + 1 < cliArgs.length) command = cliArgs[index + 1];
    else if (word.startsWith('--agent-command=')) command = word.slice('--agent-command='.length);
  });
  return command;
}

/** The agent command a run last ran with: its latest resume's, else the one it started with. */
export function recordedAgentCommand(run: Pick<StoredRun, 'provenance'>): string | undefined {
  const resumes = run.provenance.resumes ?? [];
  for (let index = resumes.length - 1; index >= 0; index -= 1) {
    const command = agentCommandOf(resumes[index].cliArgs);
    if (command !== undefined) return command;
  }
  return agentCommandOf(run.provenance.cliArgs);
}

/** What a user types to continue an external agent's run: the same agent command, or serve for MCP clients. */
export function continueExternalAgentRun(run: Pick<StoredRun, 'id' | 'model' | 'provenance'>, databaseFlag = ''): string {
  const command = resumeCommand(run, databaseFlag);
  return recordedAgentCommand(run) === undefined ? `${command}, and point the MCP client at it again` : command;
}

/**
 * What a user types to continue a stored run, whoever ran it: an external agent's run with its agent command or
 * `serve`, any other with `run --resume`. `databaseFlag`: the ` --db <file>` the printed command repeats ('' for the default).
 */
export function resumeCommand(run: Pick<StoredRun, 'id' | 'model' | 'provenance'>, databaseFlag = ''): string {
  if (!isExternalAgentRun(run)) return `toolforge run --resume ${run.id}${databaseFlag}`;
  const command = recordedAgentCommand(run);
  return command === undefined ? `toolforge serve --resume ${run.id}${databaseFlag}` : `toolforge run --resume ${run.id} --agent-command ${shellArgument(command)}${databaseFlag}`;
}

/** Refuses to continue a run with a model other than its own, or an external agent's run without its agent. */
export function checkRunAgent(run: StoredRun, agent: AgentSource | undefined, databaseFlag = ''): void {
  if (agent === undefined) {
    if (!isExternalAgentRun(run)) return;
    throw new ConfigError('config.invalid', `run '${run.id}' evaluated an external agent (${run.model}), which ToolForge cannot call by itself`, {
      fix: `continue it with its agent: ${continueExternalAgentRun(run, databaseFlag)}`,
    });
  }
  if (agent.ref === run.model) return;
  throw new ConfigError('config.invalid', `run '${run.id}' evaluated ${run.model}, not ${agent.ref}: one run holds one model's episodes`, {
    fix: isExternalAgentRun(run)
      ? `continue it with its own agent (${continueExternalAgentRun(run, databaseFlag)}), or start a new run for ${agent.ref}`
      : `drop --agent-command to continue it with ${run.model}, or start a new run for ${agent.ref}`,
  });
}
