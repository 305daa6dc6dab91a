/**
 * The data-dependency DAG of a call sequence (paper section 4.5): nodes are calls, an edge A -> B means
 * an argument of B references A's output. Used for the win-rate breakdowns by maximum nesting depth,
 * number of data dependencies and nesting pattern, and by the generator to check its knobs.
 */
import type { JsonValue } from '../../core/json.ts';
import { isJsonObject } from '../../core/json.ts';

export type CallGraphStats = {
  calls: number;
  /** Edges on the longest dependency path (0 when no call uses another's output). */
  depth: number;
  /** Distinct (producer, consumer) pairs. */
  dependencies: number;
  /** The largest number of distinct earlier calls feeding one call. */
  maxFanIn: number;
  /** Canonical shape, e.g. "A->B, {B,C}->D"; "none" without dependencies. */
  pattern: string;
};

/** The label a reference string points at (`$var_1.result$` -> `var_1`), or undefined. */
export function referencedLabel(value: string): string | undefined {
  if (!value.startsWith('$')) return undefined;
  const dot = value.indexOf('.');
  const head = dot < 0 ? value : value.slice(0, dot);
  const label = head.replaceAll('$', '');
  return label === '' ? undefined : label;
}

function referencesIn(value: JsonValue, found: string[]): void {
  if (typeof value === 'string') {
    const label = referencedLabel(value);
    if (label !== undefined) found.push(label);
  } else if (Array.isArray(value)) {
    for (const item of value) referencesIn(item, found);
  }
}

/** Producer indices of each call (distinct, ascending); references to unknown or later labels are ignored. */
export function callDependencies(calls: readonly JsonValue[]): number[][] {
  const labelIndex = new Map<string, number>();
  return calls.map((call, index) => {
    const producers = new Set<number>();
    if (isJsonObject(call)) {
      const callArguments = call.arguments;
      if (isJsonObject(callArguments)) {
        const labels: string[] = [];
        for (const value of Object.values(callArguments)) referencesIn(value, labels);
        for (const label of labels) {
          const producer = labelIndex.get(label);
          if (producer !== undefined) producers.add(producer);
        }
      }
      if (typeof call.label === 'string') labelIndex.set(call.label.replaceAll('$', ''), index);
    }
    return [...producers].sort((left, right) => left - right);
  });
}

export function analyzeCallGraph(calls: readonly JsonValue[]): CallGraphStats {
  const producersOf = callDependencies(calls);
  const level: number[] = [];
  let dependencies = 0;
  let maxFanIn = 0;
  producersOf.forEach((producers, index) => {
    level[index] = producers.length === 0 ? 0 : Math.max(...producers.map((producer) => level[producer])) + 1;
    dependencies += producers.length;
    maxFanIn = Math.max(maxFanIn, producers.length);
  });
  return { calls: calls.length, depth: Math.max(0, ...level), dependencies, maxFanIn, pattern: nestingPattern(producersOf) };
}

function nestingPattern(producersOf: readonly number[][]): string {
  const letters = new Map<number, string>();
  const letter = (index: number): string => {
    let name = letters.get(index);
    if (name === undefined) {
      const ordinal = letters.size;
      name = ordinal < 26 ? String.fromCharCode(65 + ordinal) : `N${ordinal}`;
      letters.set(index, name);
    }
    return name;
  };
  const parts: string[] = [];
  producersOf.forEach((producers, consumer) => {
    if (producers.length === 0) return;
    // Letters inside a set are sorted so that the same shape always prints the same way.
    const sources = producers.map(letter).sort();
    const target = letter(consumer);
    parts.push(sources.length === 1 ? `${sources[0]}->${target}` : `{${sources.join(',')}}->${target}`);
  });
  return parts.length === 0 ? 'none' : parts.join(', ');
}
