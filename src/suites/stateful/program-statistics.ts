/**
 * Metrics over generated programs (paper IV-B, IV-C): adjacent transition coverage (ATC, Eq. 3) as a curve over
 * the number of programs, and the Table I statistics per task (instruction and code length in cl100k_base tokens,
 * API calls, path depth, binding count).
 */
import { createRequire } from 'node:module';
import type { StatefulProgram } from './program-generator.ts';
import type { CallRecord } from './trace-generator.ts';

/** Distinct (o_i, o_i+1) over every execution path of the programs, divided by M². */
export function adjacentTransitionCoverage(programs: readonly Pick<StatefulProgram, 'paths'>[], apiCount: number): number {
  const pairs = new Set<string>();
  for (const program of programs) {
    for (const path of program.paths) for (let index = 0; index + 1 < path.length; index += 1) pairs.add(`${path[index]}||${path[index + 1]}`);
  }
  return pairs.size / (apiCount * apiCount);
}

/** ATC after the first n programs, for each n in `checkpoints`. */
export function coverageCurve(programs: readonly Pick<StatefulProgram, 'paths'>[], apiCount: number, checkpoints: readonly number[]): { programs: number; atc: number }[] {
  return checkpoints.map((count) => ({ programs: count, atc: adjacentTransitionCoverage(programs.slice(0, count), apiCount) }));
}

/**
 * Data-flow statistics of a program's calls: an edge joins a call to a later one that reads a variable it created.
 * Binding count = variables created by one call and read by another; path depth = edges on the longest chain.
 */
export function dataFlowStatistics(calls: readonly CallRecord[]): { pathDepth: number; bindingCount: number } {
  const producer = new Map<string, number>();
  const depth: number[] = [];
  const bound = new Set<string>();
  for (const [index, call] of calls.entries()) {
    let longest = 0;
    for (const variable of call.consumes) {
      const source = producer.get(variable);
      if (source === undefined) continue;
      bound.add(variable);
      longest = Math.max(longest, depth[source] + 1);
    }
    depth.push(longest);
    for (const variable of call.produces) producer.set(variable, index);
  }
  return { pathDepth: Math.max(0, ...depth), bindingCount: bound.size };
}

export function tokenCount(text: string): number {
  return cl100k().encode(text).length;
}

export type ProgramStatistics = {
  instructionTokens: number;
  codeTokens: number;
  /** API calls written in the program (both branches). */
  functionCalls: number;
  pathDepth: number;
  bindingCount: number;
  branched: boolean;
};

export function programStatistics(program: StatefulProgram, instruction: string, code: string): ProgramStatistics {
  // Branch calls are recorded after the prefix; a variable from the if-branch never feeds the else-branch, so the
  // flat list gives the right edges (names are unique per program).
  return {
    instructionTokens: tokenCount(instruction),
    codeTokens: tokenCount(code),
    functionCalls: program.calls.length,
    ...dataFlowStatistics(program.calls),
    branched: program.branch !== undefined,
  };
}

export type TableOneRow = { instructionLength: number; codeLength: number; functionCalls: number; pathDepth: number; bindingCount: number };

/** Table I: the statistics averaged over tasks. */
export function tableOne(statistics: readonly ProgramStatistics[]): TableOneRow {
  const mean = (pick: (item: ProgramStatistics) => number) => (statistics.length === 0 ? 0 : statistics.reduce((sum, item) => sum + pick(item), 0) / statistics.length);
  return {
    instructionLength: mean((item) => item.instructionTokens),
    codeLength: mean((item) => item.codeTokens),
    functionCalls: mean((item) => item.functionCalls),
    pathDepth: mean((item) => item.pathDepth),
    bindingCount: mean((item) => item.bindingCount),
  };
}

// The cl100k_base tables take ~70 MB: loaded on the first count, not by every command that imports the suites.
const requireModule = createRequire(import.meta.url);
let encoder: { encode(text: string): number[] } | undefined;
function cl100k(): { encode(text: string): number[] } {
  encoder ??= requireModule('gpt-tokenizer/encoding/cl100k_base') as { encode(text: string): number[] };
  return encoder;
}
