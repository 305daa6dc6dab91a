/**
 * From model output to the one axios call that is executed, as WAPIIBench's pipeline does it:
 * 1. the program: a completion continues the starter (starter + output); a chat answer is taken from
 *    its code fence, and from its first `axios.` on it replaces the starter's last line;
 * 2. excess code: the first `axios.` is cut at the first cutoff point found, tried in priority order
 *    (`.then`, `.catch`, `.finally` become `;`, the closers `});`, `}\n);`, `);`, `;` are kept, and
 *    `\naxios.` or a closing fence are dropped). No `axios.` = absent request; no cutoff = incomplete.
 */

export type AxiosCallExtraction =
  | { type: 'call'; code: string }
  | { type: 'absent-request' }
  | { type: 'incomplete-request' };

/** The program a model wrote: starter + continuation for completions, merged fence content for chat answers. */
export function assembleProgram(starter: string, output: string, kind: 'chat' | 'completion'): string {
  if (kind === 'completion') return starter + output;
  const code = fencedCode(output) ?? output;
  const callIndex = code.indexOf('axios.');
  if (callIndex === -1) return starter + code;
  const starterHead = starter.slice(0, starter.lastIndexOf('\n') + 1);
  return starterHead + code.slice(callIndex);
}

/** The content of the first fenced block that holds an axios call (else the first fenced block). */
export function fencedCode(text: string): string | undefined {
  const blocks = [...text.matchAll(/```[^\n`]*\n([\s\S]*?)(?:```|$)/g)].map((match) => match[1]);
  if (blocks.length === 0) return undefined;
  return blocks.find((block) => block.includes('axios.')) ?? blocks[0];
}

const cutoffPoints = ['.then', '.catch', '.finally', '});', '}\n);', ');', ';', '\naxios.', '```'] as const;

export function extractAxiosCall(code: string): AxiosCallExtraction {
  const start = code.indexOf('axios.');
  if (start === -1) return { type: 'absent-request' };
  const offset = start + 'axios.'.length;
  for (const cutoff of cutoffPoints) {
    const index = code.indexOf(cutoff, offset);
    if (index === -1) continue;
    let replacement = '';
    if (cutoff === '.then' || cutoff === '.catch' || cutoff === '.finally') replacement = ';\n';
    else if (cutoff === '});' || cutoff === '}\n);' || cutoff === ');' || cutoff === ';') replacement = `${cutoff}\n`;
    return { type: 'call', code: code.slice(start, index) + replacement };
  }
  return { type: 'incomplete-request' };
}
