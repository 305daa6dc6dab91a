/**
 * Random, task-unique names (paper section 3.2, appendix B.2): functions `func_` + 3 letters,
 * variables 4–6 letters, and for every variable a type shared by many (`type_` + 3 letters, from a
 * small pool) and a subtype unique to it (`subtype_` + 3 letters).
 */
import type { Rng } from '../../core/rng.ts';

export type NameSource = {
  functionName(): string;
  variableName(): string;
  /** A (type, subtype) pair for a new variable: the type from the shared pool, the subtype fresh. */
  variableKind(): { type: string; subtype: string };
};

export function createNameSource(rng: Rng, variableCount: number): NameSource {
  const used = new Set<string>();
  const fresh = (make: () => string): string => {
    for (;;) {
      const name = make();
      if (!used.has(name)) {
        used.add(name);
        return name;
      }
    }
  };
  // About four variables per type, and at least two types, so types alone never identify a link.
  const typePool = Array.from({ length: Math.max(2, Math.round(variableCount / 4)) }, () => fresh(() => `type_${rng.letters(3)}`));
  return {
    functionName: () => fresh(() => `func_${rng.letters(3)}`),
    variableName: () => fresh(() => rng.letters(rng.int(4, 6))),
    variableKind: () => ({ type: rng.pick(typePool), subtype: fresh(() => `subtype_${rng.letters(3)}`) }),
  };
}
