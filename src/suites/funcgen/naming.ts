/**
 * Random, task-unique names (paper section 3.2, appendix B.2): functions `func_` + 3 letters,
 * variables 4–6 letters, and for every variable a type shared by many (`type_` + 3 letters, from a
 * small pool) and a subtype unique to it (`subtype_` + 3 letters).
 *
 * There are two type pools. Core and connected (CIN) variables draw from one; variables of
 * disconnected functions (DINs) from the other, so a DIN is never type-compatible with the core
 * (section 4.5: "the disconnected setting where irrelevant functions are not type-compatible with
 * core functions").
 */
import type { Rng } from '../../core/rng.ts';

/** Which type pool a variable draws from. */
export type TypePool = 'core' | 'distractor';

export type NameSource = {
  functionName(): string;
  variableName(): string;
  /** A (type, subtype) pair for a new variable: the type from the pool, the subtype fresh. */
  variableKind(pool: TypePool): { type: string; subtype: string };
};

/** `variableCounts`: how many variables each pool will serve, to size it. */
export function createNameSource(rng: Rng, variableCounts: Record<TypePool, number>): NameSource {
  const used = new Set<string>();
  /** `prefix` + `length` random letters (a length in [4, 6] drawn per try when 0), drawn again until unused in this task. */
  const fresh = (prefix: string, length: number): string => {
    for (;;) {
      const name = prefix + rng.letters(length === 0 ? rng.int(4, 6) : length);
      if (!used.has(name)) {
        used.add(name);
        return name;
      }
    }
  };
  // About four variables per type, and at least two types, so types alone never identify a link.
  // Type names are unique across both pools (one `used` set), so the pools never overlap.
  const poolOf = (count: number): string[] => (count === 0 ? []
    : Array.from({ length: Math.max(2, Math.round(count / 4)) }, () => fresh('type_', 3)));
  const pools: Record<TypePool, string[]> = { core: poolOf(variableCounts.core), distractor: poolOf(variableCounts.distractor) };
  return {
    functionName: () => fresh('func_', 3),
    variableName: () => fresh('', 0),
    variableKind: (pool) => {
      if (pools[pool].length === 0) throw new Error(`funcgen: no '${pool}' type pool was sized for this variable (generator bug)`);
      return { type: rng.pick(pools[pool]), subtype: fresh('subtype_', 3) };
    },
  };
}
