/**
 * The knob grid of the paper's experiments (section 4.1): core in {5, 10, 20}; depth 1..core-1 for
 * 5 and 10 core nodes, every 10% step (1, 3, ..., 19) for 20; irrelevant functions in {0, 10, 20, 40},
 * all connected, all disconnected, or half and half.
 */
import type { FuncgenParams } from './knobs.ts';

export function paperDepths(core: number): number[] {
  if (core < 20) return Array.from({ length: core - 1 }, (_, index) => index + 1);
  const step = Math.round(core / 10);
  return Array.from({ length: Math.ceil((core - 1) / step) }, (_, index) => 1 + index * step).filter((depth) => depth <= core - 1);
}

export function paperIrrelevantSplits(): { connected: number; disconnected: number }[] {
  const splits = [{ connected: 0, disconnected: 0 }];
  for (const total of [10, 20, 40]) {
    splits.push({ connected: total, disconnected: 0 }, { connected: 0, disconnected: total }, { connected: total / 2, disconnected: total / 2 });
  }
  return splits;
}

export function paperKnobGrid(restate = false): FuncgenParams[] {
  return [5, 10, 20].flatMap((core) => paperDepths(core).flatMap((depth) =>
    paperIrrelevantSplits().map((split) => ({ core, depth, ...split, restate }))));
}
