/**
 * The offline instruction translator (the deterministic default in place of III-E's generator/evaluator agents):
 * each statement of the reference program becomes one sentence from a per-API template, the branch becomes
 * "If ... equals <constant>: ... Otherwise: ...", and the initialization variables are named and typed but their
 * values are not given (as the reference's translation prompt requires).
 */
import type { StatefulProgram } from './program-generator.ts';
import type { ScenarioId } from './stateful-backend.ts';

/** `response_0[4].voice_name` -> "the voice_name of response_0[4]". */
export function describeExpression(expression: string): string {
  const text = expression.trim();
  if (/^-?\d/.test(text) || text.startsWith('"') || text.startsWith("'") || text === 'true' || text === 'false') return text;
  const lastDot = text.lastIndexOf('.');
  if (lastDot <= 0) return text;
  const field = text.slice(lastDot + 1);
  if (field === 'length') return `the number of items in ${text.slice(0, lastDot)}`;
  return `the ${field} of ${text.slice(0, lastDot)}`;
}

type Rule = { pattern: RegExp; sentence: (match: RegExpMatchArray) => string };

/** The URL template up to the type; `group` is the number of the capture group holding the session variable. */
function sessionPrefix(group: number): string {
  return String.raw`\`\$\{BASE_URL\}/api/sessions/\$\{(.+?)\.source\}/\$\{` + `\\${group}` + String.raw`\.type\}`;
}
const sessionRules: Rule[] = [
  { pattern: new RegExp(String.raw`^let (\w+) = \(await axios\.post\(${sessionPrefix(2)}\`, \2\.data\)\)\.data;$`),
    sentence: (m) => `Save the data of ${m[2]} as a session under its source and type, and keep the service's answer (the session id) as ${m[1]}.` },
  { pattern: new RegExp(String.raw`^let (\w+) = \(await axios\.get\(${sessionPrefix(2)}\`\)\)\.data;$`),
    sentence: (m) => `Fetch all sessions stored under the source and type of ${m[2]}; call the list ${m[1]}.` },
  { pattern: new RegExp(String.raw`^let (\w+) = \(await axios\.get\(${sessionPrefix(2)}/query\`, \{ params: \{ field: 'data\.(\w+)', value: \2\.data\.\3 \} \}\)\)\.data;$`),
    sentence: (m) => `Use the query endpoint to find the sessions under the source and type of ${m[2]} whose data.${m[3]} equals the ${m[3]} in ${m[2]}'s data; call the result ${m[1]}.` },
  { pattern: new RegExp(String.raw`^let (\w+) = \(await axios\.post\(${sessionPrefix(2)}/query/fetch\`, \{ 'data\.(\w+)': \2\.data\.\3 \}\)\)\.data;$`),
    sentence: (m) => `Post a query filter requiring data.${m[3]} to equal the ${m[3]} in ${m[2]}'s data, to fetch the matching sessions under the source and type of ${m[2]}; call the result ${m[1]}.` },
  { pattern: new RegExp(String.raw`^let (\w+) = \(await axios\.get\(${sessionPrefix(2)}/\$\{(.+?)\}\`\)\)\.data;$`),
    sentence: (m) => `Retrieve the single session whose id is ${describeExpression(m[3])} (under the source and type of ${m[2]}); call it ${m[1]}.` },
  { pattern: /^(.+?)\.data\.(\w+) = (.+);$/,
    sentence: (m) => `Change the ${m[2]} in the data of ${m[1]} to ${m[3]},` },
  { pattern: new RegExp(String.raw`^await axios\.put\(${sessionPrefix(1)}/\$\{(.+?)\}\`, \1\.data\);$`),
    sentence: (m) => `then store the data of ${m[1]} into the session whose id is ${describeExpression(m[2])} (same source and type).` },
  { pattern: new RegExp(String.raw`^await axios\.delete\(${sessionPrefix(1)}/\$\{(.+?)\}\`\);$`),
    sentence: (m) => `Delete the session whose id is ${describeExpression(m[2])} (under the source and type of ${m[1]}).` },
];

const tensorRules: Rule[] = [
  { pattern: /^let (\w+) = torch\.cat\(\[(.+?), (.+?)\], (-?\d+)\);$/, sentence: (m) => `Concatenate ${m[2]} and ${m[3]} along dimension ${m[4]}; call the result ${m[1]}.` },
  { pattern: /^let (\w+) = torch\.transpose\((.+?), (-?\d+), (-?\d+)\);$/, sentence: (m) => `Swap dimensions ${m[3]} and ${m[4]} of ${m[2]}; call the result ${m[1]}.` },
  { pattern: /^let (\w+) = torch\.permute\((.+?), (\[.+\])\);$/, sentence: (m) => `Reorder the dimensions of ${m[2]} into the order ${m[3]}; call the result ${m[1]}.` },
  { pattern: /^let (\w+) = torch\.split\((.+?), (\d+), (-?\d+)\);$/, sentence: (m) => `Split ${m[2]} into chunks of size ${m[3]} along dimension ${m[4]}; call the list of chunks ${m[1]}.` },
  { pattern: /^let (\w+) = torch\.view\((.+?), (\[.+\])\);$/, sentence: (m) => `View ${m[2]} with shape ${m[3]} (without copying; -1 means inferred); call it ${m[1]}.` },
  { pattern: /^let (\w+) = torch\.reshape\((.+?), (\[.+\])\);$/, sentence: (m) => `Reshape ${m[2]} to shape ${m[3]} (-1 means inferred); call it ${m[1]}.` },
  { pattern: /^let (\w+) = F\.linear\(([^,\s]+), (\w+), (\w+)\);$/, sentence: (m) => `Apply a linear layer with weight ${m[3]} and bias ${m[4]} to ${m[2]}; call the result ${m[1]}.` },
  { pattern: /^let (\w+) = F\.linear\(([^,\s]+), (\w+)\);$/, sentence: (m) => `Apply a linear layer with weight ${m[3]} and no bias to ${m[2]}; call the result ${m[1]}.` },
  { pattern: /^let (\w+) = F\.conv2d\((.+?), (\w+), \{ stride: (\d+), padding: (.+?), dilation: (\d+) \}\);$/,
    sentence: (m) => `Convolve ${m[2]} with the kernel ${m[3]} using stride ${m[4]}, padding ${m[5]} and dilation ${m[6]}; call the result ${m[1]}.` },
];

const voiceRules: Rule[] = [
  { pattern: /^let (\w+) = await search_voice_library\(\{ (.+) \}\);$/,
    sentence: (m) => `Search the voice library by ${m[2].split(', ').map((part) => part.split(': ')).map(([key, value]) => `${key.replace('search_', '')} (${describeExpression(value)})`).join(' and ')}; call the matching voices ${m[1]}.` },
  { pattern: /^let (\w+) = await text_to_speech\(\{ text: (.+?), voice_name: (.+?)(?:, stability: ([\d.]+), similarity_boost: ([\d.]+))? \}\);$/,
    sentence: (m) => `Turn ${describeExpression(m[2])} into speech with the voice named by ${describeExpression(m[3])}${m[4] ? `, stability ${m[4]} and similarity boost ${m[5]}` : ' and default settings'}; call the speech ${m[1]}.` },
  { pattern: /^let (\w+) = await speech_to_speech\(\{ speech: (\w+), voice_name: (.+?) \}\);$/, sentence: (m) => `Re-voice the speech ${m[2]} with the voice named by ${describeExpression(m[3])}; call the new speech ${m[1]}.` },
  { pattern: /^let (\w+) = await speech_to_text\(\{ speech: (\w+), diarize: (true|false) \}\);$/, sentence: (m) => `Transcribe the speech ${m[2]}${m[3] === 'true' ? ' with speaker diarization' : ' without diarization'}; call the transcript ${m[1]}.` },
  { pattern: /^let (\w+) = await isolate_audio\(\{ speech: (\w+) \}\);$/, sentence: (m) => `Remove the background noise from the speech ${m[2]}; call the cleaned speech ${m[1]}.` },
  { pattern: /^let (\w+) = await make_outbound_call\(\{ speech: (\w+), voice_name: (.+?) \}\);$/, sentence: (m) => `Place an outbound call playing the speech ${m[2]} with the voice named by ${describeExpression(m[3])}; call the receipt ${m[1]}.` },
];

const rules: Record<ScenarioId, Rule[]> = { session: sessionRules, tensor: tensorRules, voice: voiceRules };

/** One sentence per statement; undefined when no template matches (the program format changed). */
export function describeStatement(scenario: ScenarioId, statement: string): string | undefined {
  for (const rule of rules[scenario]) {
    const match = statement.match(rule.pattern);
    if (match) return rule.sentence(match);
  }
  return undefined;
}

function describeDeclaration(code: string, name: string): string {
  const shape = code.match(/\/\/ shape (\[.*\])$/);
  if (shape) return `${name}: a saved tensor of shape ${shape[1]}, loaded with torch.load("${name}")`;
  const value = code.match(/^let \w+ = (.+);$/)?.[1];
  if (value?.startsWith('{')) {
    const parsed = JSON.parse(value) as Record<string, unknown>;
    const fields = Object.entries(parsed).map(([key, item]) => (item !== null && typeof item === 'object' ? `${key} (an object with ${Object.keys(item).join(', ')})` : key));
    return `${name}: an object with ${fields.join(', ')}`;
  }
  if (value?.startsWith('[')) return `${name}: a list`;
  if (value?.startsWith('"')) return `${name}: a string`;
  return `${name}: a number`;
}

export class UntranslatableStatementError extends Error {}

/** The natural-language task for a program. Throws UntranslatableStatementError for an unknown statement. */
export function translateProgram(program: StatefulProgram): string {
  const lines: string[] = [];
  const preloaded = program.declarations.map((declaration) => `- ${describeDeclaration(declaration.code, declaration.name)}`);
  lines.push('These variables are already defined:', ...preloaded, '');
  let step = 0;
  let pending: string | undefined;
  for (const raw of program.body.split('\n')) {
    const indentation = raw.match(/^\s*/)?.[0] ?? '';
    const statement = raw.trim();
    const prefix = indentation.length > 0 ? '   ' : '';
    const condition = statement.match(/^if \((?:JSON\.stringify\((.+?)\) === JSON\.stringify\((\w+)\)|(.+?) === (\w+))\) \{$/);
    if (condition) {
      lines.push(`If ${describeExpression(condition[1] ?? condition[3])} equals ${condition[2] ?? condition[4]}:`);
      continue;
    }
    if (statement === '} else {') {
      lines.push('Otherwise:');
      continue;
    }
    if (statement === '}') continue;
    const result = statement.match(/^RESULT = (.+);$/);
    if (result) {
      lines.push(`${prefix}Finally, set RESULT to ${result[1]}.`);
      continue;
    }
    const sentence = describeStatement(program.scenario, statement);
    if (sentence === undefined) throw new UntranslatableStatementError(`no template for: ${statement}`);
    if (sentence.endsWith(',')) {
      pending = sentence;
      continue;
    }
    step += 1;
    lines.push(`${prefix}${step}. ${pending ? `${pending} ${sentence}` : sentence}`);
    pending = undefined;
  }
  lines.push('', 'RESULT is already declared (let RESULT = null): assign it, do not declare it again.');
  return lines.join('\n');
}
