import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../../src/core/rng.ts';
import { isWellFormedTask } from '../../../src/core/well-formed-task.ts';
import { funcgenTaskLine } from '../../../src/suites/funcgen/funcgen-task-line.ts';
import type { FuncgenParams } from '../../../src/suites/funcgen/knobs.ts';
import { paperKnobGrid } from '../../../src/suites/funcgen/paper-grid.ts';
import { generateFuncgenTask } from '../../../src/suites/funcgen/task-generator.ts';

/** Knob settings across their whole ranges, edges included (core 2, depth core-1, no irrelevant functions, many). */
function knobSettings(count: number): FuncgenParams[] {
  const rng = new Rng(20261129);
  const settings: FuncgenParams[] = [
    { core: 2, depth: 1, connected: 0, disconnected: 0, restate: false },
    { core: 2, depth: 1, connected: 0, disconnected: 1, restate: true },
    { core: 40, depth: 39, connected: 60, disconnected: 60, restate: false },
    ...paperKnobGrid(),
  ];
  while (settings.length < count) {
    const core = rng.int(2, 30);
    settings.push({ core, depth: rng.int(1, core - 1), connected: rng.int(0, 20), disconnected: rng.int(0, 20), restate: rng.bool(0.5) });
  }
  return settings;
}

test('a funcgen task line is JSON.stringify of its task, byte for byte, across knob settings, seeds and indices', () => {
  let checked = 0;
  for (const [setting, params] of knobSettings(120).entries()) {
    for (const index of [0, 1, 17]) {
      const request = { seed: setting * 7919 - 3, index, params };
      const task = generateFuncgenTask(request);
      const { id, line } = funcgenTaskLine(request);
      assert.equal(id, task.id);
      assert.equal(line, JSON.stringify(task), `${task.id} with ${JSON.stringify(params)}`);
      checked += 1;
    }
  }
  assert.ok(checked >= 360);
});

test('a funcgen task line reads back as a well-formed task equal to the task', () => {
  const request = { seed: 5, index: 3, params: { core: 6, depth: 2, connected: 3, disconnected: 2, restate: false } };
  const parsed = JSON.parse(funcgenTaskLine(request).line) as unknown;
  assert.ok(isWellFormedTask(parsed));
  assert.deepEqual(parsed, JSON.parse(JSON.stringify(generateFuncgenTask(request))));
});
