/** The user prompt of appendix B.3, and its reading back (for the planner, which sees only what a model sees). */
export type PromptInput = { name: string; value: number };

export function funcgenPrompt(target: string, inputs: readonly PromptInput[]): string {
  return [
    `Using the tools at your disposal, use functions until you are able to give me the correct value of variable ${target}.`,
    ...inputs.map((input) => `Variable ${input.name} = ${input.value}`),
    'You have all the information you need to get the correct result.',
  ].join('\n');
}

/** `word` matched in any case (Node 20's regular expressions have no inline case-insensitive group). */
function anyCase(word: string): string {
  return [...word].map((letter) => (/[a-z]/i.test(letter) ? `[${letter.toLowerCase()}${letter.toUpperCase()}]` : letter)).join('');
}

const targetPattern = new RegExp(`${anyCase('correct')}\\s+${anyCase('value')}\\s+${anyCase('of')}\\s+${anyCase('variable')}\\s+([a-z]+)(?![A-Za-z])`);
const inputPattern = new RegExp(`^\\s*${anyCase('variable')}\\s+([a-z]+)\\s*=\\s*(-?\\d+)(?!\\d)`, 'gm');

/**
 * The target and the inputs, read as a model would read them: the request's words in any case and spacing (a
 * perturbed request mixes case, breaks lines, drops periods), the variable names as written (they are kept verbatim).
 */
export function parseFuncgenPrompt(text: string): { target: string; inputs: PromptInput[] } | undefined {
  const target = targetPattern.exec(text);
  if (!target) return undefined;
  const inputs = [...text.matchAll(inputPattern)].map((match) => ({ name: match[1], value: Number(match[2]) }));
  return { target: target[1], inputs };
}
