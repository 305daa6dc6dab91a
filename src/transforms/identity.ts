/** identity: the task unchanged except for its id and origin (the contract's trivial case, and a pairing check). */
import type { TaskTransform } from './spec.ts';

export const identityTransform: TaskTransform = {
  id: 'identity',
  version: '1',
  description: 'changes nothing (checks the transform pipeline and paired comparison)',
  knobs: [],
  apply: (task) => ({ task, changes: {} }),
};
