/** The user prompt of appendix B.3, and its reading back (for the planner, which sees only what a model sees). */
export type PromptInput = { name: string; value: number };

export function funcgenPrompt(target: string, inputs: readonly PromptInput[]): string {
  return [
    `Using the tools at your disposal, use functions until you are able to give me the correct value of variable ${target}.`,
    ...inputs.map((input) => `Variable ${input.name} = ${input.value}`),
    'You have all the information you need to get the correct result.',
  ].join('\n');
}

export function parseFuncgenPrompt(text: string): { target: string; inputs: PromptInput[] } | undefined {
  const target = /give me the correct value of variable ([a-z]+)\./.exec(text);
  if (!target) return undefined;
  const inputs = [...text.matchAll(/^Variable ([a-z]+) = (-?\d+)$/gm)].map((match) => ({ name: match[1], value: Number(match[2]) }));
  return { target: target[1], inputs };
}
