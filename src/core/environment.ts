import type { JsonValue } from './json.ts';
import type { ToolCall, ToolResult, ToolSpec } from './tool.ts';

/**
 * The live world behind one episode, created fresh from a task. Tool errors are returned, not
 * thrown; a thrown error means the environment itself broke (infrastructure).
 */
export interface Environment {
  listTools(): ToolSpec[];
  callTool(call: ToolCall, context: { signal: AbortSignal }): Promise<ToolResult>;
  /** The end state scorers judge (call log, backend state, captured requests...). */
  snapshotState(): Promise<JsonValue>;
  dispose(): Promise<void>;
}
