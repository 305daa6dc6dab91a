/**
 * Per-sample NESTFUL judgement with the official scorer's semantics (reference section 1.4):
 * - grounding: labels are replaced by their producer's function name (`$var_1.result$` ->
 *   `$multiply.result$`), for the gold always and for the prediction when its text mentions `label`;
 * - function names and `"arg = value"` parameter strings (Python `str()` forms, last call per function
 *   name wins) go to the corpus-level F1 (see nestful-metrics.ts);
 * - partial accuracy: calls as `name(sorted "k = v" strings)`, lists aligned greedily by name when their
 *   lengths differ, then the share of equal positions; full match = partial accuracy 1;
 * - win: the raw (ungrounded) prediction executed, last call's output compared with the gold answer.
 */
import { z } from 'zod';
import type { FailureCode } from '../../core/failure.ts';
import { failureCodeSchema } from '../../core/failure.ts';
import type { JsonObject, JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';
import type { CallGraphStats } from './call-graph.ts';
import { analyzeCallGraph } from './call-graph.ts';
import type { ExecutionOutcome } from './execute-calls.ts';
import { answerMatches, executeCallSequence } from './execute-calls.ts';
import { copyFloatMarks, isFloatLiteral, parseLenientJson } from './lenient-json.ts';
import type { NestfulTool } from './nestful-sample.ts';
import { resultPseudoCall } from './nestful-sample.ts';
import { parseCallList } from './parse-call-list.ts';
import { pythonFloatDecimals, pythonRound, pythonStr } from './python-format.ts';

/** What the scorer needs of a sample. */
export type NestfulReference = {
  outputJson: string;
  goldAnswerJson: string | null;
  tools: readonly NestfulTool[];
  /** Whether the win rate can be computed (all tools executable and the gold reproduces the answer). */
  executable: boolean;
};

/** The per-episode details the corpus summary aggregates (JSON, stored with the score: the suite's detailsSchema). */
export const sampleEvaluationSchema = z.object({
  parsed: z.boolean(),
  goldNames: z.array(z.string()),
  predictedNames: z.array(z.string()),
  /** One row per function name in either list: [predicted "arg = value" strings, gold ones]. */
  parameterRows: z.array(z.tuple([z.array(z.string()), z.array(z.string())])),
  partialAccuracy: z.number(),
  fullMatch: z.boolean(),
  executable: z.boolean(),
  win: z.boolean(),
  failure: failureCodeSchema.nullable(),
  reason: z.string(),
  predictedAnswer: z.json().optional(),
  depth: z.number(),
  dependencies: z.number(),
  pattern: z.string(),
});

export type SampleEvaluation = z.infer<typeof sampleEvaluationSchema>;

type PreparedReference = {
  /** Every object of the gold list as parsed (the result pseudo-call included): what executing the gold runs. */
  goldObjects: JsonObject[];
  goldCalls: JsonObject[];
  goldGrounded: JsonObject[];
  goldAnswer: JsonValue;
  goldDecimals: number | undefined;
  stats: CallGraphStats;
  toolNames: Set<string>;
};

const preparedCache = new Map<string, PreparedReference>();

function prepareReference(reference: NestfulReference): PreparedReference {
  const key = `${reference.outputJson}\u0000${reference.goldAnswerJson}\u0000${reference.tools.map((tool) => tool.name).join(',')}`;
  const cached = preparedCache.get(key);
  if (cached) return cached;
  const parsedOutput = parseLenientJson(reference.outputJson);
  if (!parsedOutput.ok || !Array.isArray(parsedOutput.value)) throw new Error(`nestful: gold output is not a JSON list: ${reference.outputJson.slice(0, 80)}`);
  const goldObjects = parsedOutput.value.filter(isJsonObject);
  const goldCalls = goldObjects.filter((call) => call.name !== resultPseudoCall);
  let goldAnswer: JsonValue = null;
  let goldDecimals: number | undefined;
  if (reference.goldAnswerJson !== null) {
    const parsedAnswer = parseLenientJson(reference.goldAnswerJson);
    if (parsedAnswer.ok) {
      goldAnswer = parsedAnswer.value;
      if (parsedAnswer.isFloat && typeof goldAnswer === 'number') goldDecimals = pythonFloatDecimals(goldAnswer);
    }
  }
  const prepared: PreparedReference = {
    goldObjects,
    goldCalls,
    goldGrounded: groundCalls(goldObjects),
    goldAnswer,
    goldDecimals,
    stats: analyzeCallGraph(goldCalls),
    toolNames: new Set(reference.tools.map((tool) => tool.name)),
  };
  // Bounded: the trials of a task run back to back, so a small cache serves them; 100,000 distinct samples must not stay.
  if (preparedCache.size >= 1024) preparedCache.clear();
  preparedCache.set(key, prepared);
  return prepared;
}

export function referenceStats(reference: NestfulReference): CallGraphStats & { goldAnswer: JsonValue; goldDecimals: number | undefined; goldObjects: readonly JsonObject[] } {
  const prepared = prepareReference(reference);
  return { ...prepared.stats, goldAnswer: prepared.goldAnswer, goldDecimals: prepared.goldDecimals, goldObjects: prepared.goldObjects };
}

/** The official grounding: every label in a reference replaced by the producing function's name. */
export function groundCalls(calls: readonly JsonObject[]): JsonObject[] {
  // The official loop tries every label on every argument, in the order the labels were first seen (a label defined
  // twice keeps its first place and its last producer). Only the label a value names can match it, so each value looks
  // its label up instead: the same replacements, in the same order, without the calls x labels cost (a 40,000-call
  // answer took 74 s).
  const producers = new Map<string, { order: number; producer: string }>();
  for (const call of calls) {
    if (call.name === 'varResult' || call.name === resultPseudoCall) continue;
    if (typeof call.label !== 'string') continue;
    const label = call.label.replaceAll('$', '');
    producers.set(label, { order: producers.get(label)?.order ?? producers.size, producer: String(call.name) });
  }
  const ground = (value: string): string => {
    let grounded = value;
    let after = -1;
    for (;;) {
      const label = referencedLabelOf(grounded);
      const entry = label === undefined ? undefined : producers.get(label);
      // A replacement may make the value name another label, which the official loop applies only if it comes later.
      if (label === undefined || entry === undefined || entry.order <= after) return grounded;
      grounded = grounded.split(label).join(entry.producer);
      after = entry.order;
    }
  };
  const grounded: JsonObject[] = [];
  for (const call of calls) {
    if (call.name === resultPseudoCall) continue;
    const source = isJsonObject(call.arguments) ? call.arguments : isJsonObject(call.parameters) ? call.parameters : {};
    const argumentsOut: JsonObject = {};
    for (const [name, original] of Object.entries(source)) {
      let value = original;
      if (typeof value === 'string') {
        value = ground(value);
      } else if (Array.isArray(value) && producers.size > 0) {
        const list = value;
        const replaced = list.map((item) => (typeof item === 'string' ? ground(item) : item));
        copyFloatMarks(list, replaced);
        value = replaced;
      }
      argumentsOut[name] = value;
    }
    copyFloatMarks(source, argumentsOut);
    grounded.push({ name: call.name ?? null, arguments: argumentsOut });
  }
  return grounded;
}

/** The label a value names as the official check reads it (`$var_1.result$` -> `var_1`), or undefined. */
function referencedLabelOf(value: string): string | undefined {
  if (!value.startsWith('$var')) return undefined;
  const dot = value.indexOf('.');
  return dot < 0 ? undefined : value.slice(0, dot).replaceAll('$', '');
}

/**
 * A reference written without its trailing `$` (`$var_1.result`). The official scorer appends `$` to any
 * predicted string that starts with `$`, which also changes literals such as "$100-$200" and makes the
 * gold sequence itself score below 1 on three v1 samples; only reference-shaped strings are completed
 * here. Labels and tool names may hold hyphens (`Real-Time_Product_Search_Search`).
 */
const unterminatedReference = /^\$[A-Za-z_][\w-]*\.[^$\s]+$/;

/**
 * Completes unterminated references in a prediction's top-level argument strings (the official scorer
 * does not look inside lists either). Done before grounding, so the completed reference grounds to
 * `$producer.field$` whatever characters the producer's name holds.
 */
export function completeReferences(calls: readonly JsonObject[]): JsonObject[] {
  return calls.map((call) => {
    const callArguments = call.arguments;
    if (!isJsonObject(callArguments)) return call;
    let changed = false;
    const completed: JsonObject = {};
    for (const [name, value] of Object.entries(callArguments)) {
      const unterminated = typeof value === 'string' && unterminatedReference.test(value);
      completed[name] = unterminated ? `${value}$` : value;
      changed ||= unterminated;
    }
    if (!changed) return call;
    copyFloatMarks(callArguments, completed);
    return { ...call, arguments: completed };
  });
}

/** `"arg = value"` strings of a call (Python `str()` of each value). */
function parameterStrings(call: JsonObject): string[] | undefined {
  const callArguments = call.arguments;
  if (!isJsonObject(callArguments)) return undefined;
  return Object.entries(callArguments).map(([name, value]) => `${name} = ${pythonStr(value, isFloatLiteral(callArguments, name))}`);
}

function callString(call: JsonObject): string {
  const strings = parameterStrings(call);
  // Python sorts by code point; for these ASCII-dominated strings UTF-16 order is the same.
  return `${pythonStr(call.name ?? null)}(${strings ? strings.sort().join(', ') : '{}'})`;
}

/** The official greedy two-pointer alignment on names, padding with "" (only when lengths differ). */
export function alignByName(gold: readonly string[], predicted: readonly string[]): [string[], string[]] {
  const nameOf = (call: string): string => call.split('(', 1)[0];
  if (gold.length === predicted.length) return [[...gold], [...predicted]];
  const goldNames = gold.map(nameOf);
  const predictedNames = predicted.map(nameOf);
  const alignedGold: string[] = [];
  const alignedPredicted: string[] = [];
  let left = 0;
  let right = 0;
  while (left < gold.length || right < predicted.length) {
    if (left < gold.length && right < predicted.length && goldNames[left] === predictedNames[right]) {
      alignedGold.push(gold[left++]);
      alignedPredicted.push(predicted[right++]);
    } else if (left < gold.length) {
      alignedGold.push(gold[left++]);
      alignedPredicted.push('');
    } else {
      alignedGold.push('');
      alignedPredicted.push(predicted[right++]);
    }
  }
  return [alignedGold, alignedPredicted];
}

export function partialAccuracy(goldCalls: readonly string[], predictedCalls: readonly string[]): number {
  const [gold, predicted] = alignByName(goldCalls, predictedCalls);
  if (gold.length === 0) return 0;
  let equal = 0;
  for (let index = 0; index < gold.length; index += 1) if (gold[index] === predicted[index]) equal += 1;
  return equal / gold.length;
}

function parameterMap(calls: readonly JsonObject[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const call of calls) {
    // As the official scorer: the entry is created even when the arguments are unusable.
    map.set(pythonStr(call.name ?? null), parameterStrings(call) ?? []);
  }
  return map;
}

export type Prediction =
  | { type: 'text'; text: string }
  /** Calls made live (calls/react modes): scored like a sequence, but the win comes from the real run. */
  | { type: 'executed'; calls: JsonObject[]; outcome: ExecutionOutcome };

export function evaluatePrediction(reference: NestfulReference, prediction: Prediction): SampleEvaluation {
  const prepared = prepareReference(reference);
  const goldNames = prepared.goldGrounded.map((call) => pythonStr(call.name ?? null));
  const base = {
    goldNames,
    executable: reference.executable,
    depth: prepared.stats.depth,
    dependencies: prepared.stats.dependencies,
    pattern: prepared.stats.pattern,
  };
  const goldParameters = parameterMap(prepared.goldGrounded);
  let rawCalls: JsonObject[];
  let mentionsLabel: boolean;
  if (prediction.type === 'text') {
    const parsed = parseCallList(prediction.text);
    if (!parsed.ok) {
      return {
        ...base,
        parsed: false,
        predictedNames: [],
        parameterRows: [...goldParameters.values()].map((gold) => [[], gold]),
        partialAccuracy: 0,
        fullMatch: false,
        win: false,
        failure: 'output.unparsable',
        reason: `no call list in the output (${parsed.error})`,
      };
    }
    rawCalls = parsed.calls;
    mentionsLabel = parsed.mentionsLabel;
  } else {
    rawCalls = prediction.calls;
    mentionsLabel = true;
  }
  // As the official scorer: a `var_result` pseudo-call is dropped by grounding only, so an unlabelled
  // output keeps it as a predicted call, and execution (which runs the raw list) fails on it.
  const completed = completeReferences(rawCalls);
  const grounded = mentionsLabel ? groundCalls(completed) : completed;
  const predictedNames = grounded.map((call) => pythonStr(call.name ?? null));
  const predictedParameters = parameterMap(grounded);
  const parameterRows: [string[], string[]][] = [];
  for (const name of new Set([...predictedParameters.keys(), ...goldParameters.keys()])) {
    parameterRows.push([predictedParameters.get(name) ?? [], goldParameters.get(name) ?? []]);
  }
  const accuracy = partialAccuracy(
    prepared.goldGrounded.map(callString),
    grounded.map(callString),
  );
  const fullMatch = accuracy === 1;
  const unknown = predictedNames.find((name) => !prepared.toolNames.has(name));

  let win = false;
  let predictedAnswer: JsonValue | undefined;
  let failure: FailureCode | null = null;
  let reason: string;
  if (reference.executable) {
    const outcome = prediction.type === 'executed' ? prediction.outcome : executeCallSequence(rawCalls, reference.tools);
    if (outcome.ok) {
      predictedAnswer = outcome.answer;
      win = answerMatches(outcome.answer, prepared.goldAnswer, prepared.goldDecimals, pythonRound);
      reason = win ? `the calls compute the gold answer ${reference.goldAnswerJson}` : `the calls compute ${JSON.stringify(outcome.answer)}, gold is ${reference.goldAnswerJson}`;
      if (!win) failure = 'result.wrong';
    } else {
      failure = outcome.failure.code;
      reason = `the calls do not execute: ${outcome.failure.message}`;
    }
    if (prediction.type === 'text' && rawCalls.length === 0) { failure = 'result.wrong'; reason = 'the prediction is an empty call list'; }
  } else if (fullMatch) {
    reason = 'the call sequence matches the gold sequence';
  } else {
    failure = unknown !== undefined ? 'tool.unknown' : 'result.wrong';
    reason = unknown !== undefined ? `'${unknown}' is not one of the offered tools` : `partial sequence accuracy ${accuracy.toFixed(3)}`;
  }
  const evaluation: SampleEvaluation = {
    ...base, parsed: true, predictedNames, parameterRows, partialAccuracy: accuracy, fullMatch, win, failure, reason,
  };
  if (predictedAnswer !== undefined) evaluation.predictedAnswer = predictedAnswer;
  return evaluation;
}
