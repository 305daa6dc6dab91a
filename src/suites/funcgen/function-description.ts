/**
 * The one description shape every funcgen tool has, so any client (the planner, a user's script)
 * can parse it:
 *   Processes variable <param> (type_<t> with subtype_<s>)[, variable <param> (...)]... to produce variable <out> (type_<t> with subtype_<s>)
 */
export type DescribedVariable = { name: string; type: string; subtype: string };
export type FunctionSignature = { parameters: DescribedVariable[]; output: DescribedVariable };

function describeVariable(variable: DescribedVariable): string {
  return `variable ${variable.name} (${variable.type} with ${variable.subtype})`;
}

export function describeFunction(signature: FunctionSignature): string {
  return `Processes ${signature.parameters.map(describeVariable).join(', ')} to produce ${describeVariable(signature.output)}`;
}

const variablePattern = /^variable ([a-z]+) \((type_[a-z]+) with (subtype_[a-z]+)\)$/;
const descriptionPattern = /^Processes (.+) to produce (variable [a-z]+ \(type_[a-z]+ with subtype_[a-z]+\))$/;

/** The signature a description states, or undefined when it is not in the shape above. */
export function parseFunctionDescription(description: string): FunctionSignature | undefined {
  const match = descriptionPattern.exec(description);
  if (!match) return undefined;
  const parameters = match[1].split(', ').map((part) => parseVariable(part));
  const output = parseVariable(match[2]);
  if (output === undefined || parameters.some((parameter) => parameter === undefined)) return undefined;
  return { parameters: parameters as DescribedVariable[], output };
}

function parseVariable(text: string): DescribedVariable | undefined {
  const match = variablePattern.exec(text);
  return match ? { name: match[1], type: match[2], subtype: match[3] } : undefined;
}
