import type { JsonValue } from './json.ts';
import type { ProgramHost } from './program-host.ts';
import type { ToolCall, ToolResult, ToolSpec } from './tool.ts';

/**
 * The live world behind one episode, created fresh from a task. Tool errors are returned, not
 * thrown; a thrown error means the environment itself broke (infrastructure).
 *
 * `listTools()` is what the environment enforces (a transform may rename or reshape it); the model
 * is offered `task.tools`, the schema it was told about. In the untransformed case the two agree.
 */
export interface Environment {
  listTools(): ToolSpec[];
  callTool(call: ToolCall, context: { signal: AbortSignal }): Promise<ToolResult>;
  /**
   * For code tasks: what a model-written program may call (host functions, HTTP handling) and how
   * the program is cut out of the model's answer. The code agent runs the program in the runner's
   * sandbox against these bindings. Absent for environments that take no code.
   */
  bindings?(): ProgramHost;
  /** The end state scorers judge (call log, backend state, captured requests...). */
  snapshotState(): Promise<JsonValue>;
  dispose(): Promise<void>;
}
