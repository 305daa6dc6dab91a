export type Usage = { inputTokens: number; outputTokens: number };
export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0 };
export function addUsage(left: Usage, right: Usage): Usage {
  return { inputTokens: left.inputTokens + right.inputTokens, outputTokens: left.outputTokens + right.outputTokens };
}
