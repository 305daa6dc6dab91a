/**
 * The ReAct text protocol, shared by the react agent (which parses it) and the built-in models
 * (which speak it), so that both sides agree on one format.
 */
export const reactFinishAction = 'Finish';

export function formatReactStep(step: { thought: string; action: string; actionInput: unknown }): string {
  const input = typeof step.actionInput === 'string' ? step.actionInput : JSON.stringify(step.actionInput);
  return `Thought: ${step.thought}\nAction: ${step.action}\nAction Input: ${input}`;
}

export function formatReactFinish(thought: string, answer: string): string {
  return `Thought: ${thought}\nAction: ${reactFinishAction}\nAction Input: ${JSON.stringify({ answer })}`;
}

export const reactObservationPrefix = 'Observation: ';

export type ReactStep =
  | { type: 'action'; thought: string; action: string; actionInputText: string }
  | { type: 'finish'; thought: string; answer: string };

/**
 * Parses the last Thought/Action/Action Input block of a model's text. Returns undefined when no
 * Action line is present (the react agent scores that as output.unparsable).
 */
export function parseReactStep(text: string): ReactStep | undefined {
  // Line starts allow spaces and tabs, not newlines: with '^\s*' every line start re-read the blank lines after it,
  // and a reply of 40,000 blank lines took 8.6 s of the main thread to parse.
  const actionMatches = [...text.matchAll(/^[^\S\n]*Action\s*:\s*(.+?)\s*$/gim)];
  const finalMatch = /^[^\S\n]*Final Answer\s*:\s*([\s\S]*)$/im.exec(text);
  if (actionMatches.length === 0) {
    return finalMatch ? { type: 'finish', thought: extractThought(text), answer: finalMatch[1].trim() } : undefined;
  }
  const actionMatch = actionMatches[0];
  const action = actionMatch[1].replace(/^`|`$/g, '').trim();
  const rest = text.slice((actionMatch.index ?? 0) + actionMatch[0].length);
  const inputMatch = /^[^\S\n]*Action\s*Input\s*:\s*([\s\S]*?)(?=^[^\S\n]*(?:Observation|Thought|Action)\s*:|$(?![\s\S]))/im.exec(rest);
  const actionInputText = stripFence(inputMatch ? inputMatch[1].trim() : '');
  if (action.toLowerCase() === reactFinishAction.toLowerCase()) {
    return { type: 'finish', thought: extractThought(text), answer: finishAnswer(actionInputText) };
  }
  return { type: 'action', thought: extractThought(text), action, actionInputText };
}

function extractThought(text: string): string {
  const match = /^[^\S\n]*Thought\s*:\s*(.*)$/im.exec(text);
  return match ? match[1].trim() : '';
}

function stripFence(text: string): string {
  const fence = /^```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?```$/.exec(text);
  return fence ? fence[1].trim() : text;
}

function finishAnswer(inputText: string): string {
  try {
    const parsed: unknown = JSON.parse(inputText);
    if (parsed && typeof parsed === 'object' && 'answer' in parsed) return String((parsed as { answer: unknown }).answer);
    return typeof parsed === 'string' ? parsed : inputText;
  } catch {
    return inputText;
  }
}
