import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webapiDriftSeed } from '../../../src/suites/webapi/drift-task.ts';
import { fixturePath } from '../../require-data.ts';

describe('the drift seed of a spec does not depend on where the spec lies', () => {
  const spec = fixturePath('wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');
  const knobs = { op: 'all', probability: 0.99 };

  test('the same spec file in two checkouts gets the same seed; another spec, seed or knobs another one', () => {
    const copies = [mkdtempSync(join(tmpdir(), 'checkout-a-')), mkdtempSync(join(tmpdir(), 'checkout-b-'))].map((folder) => {
      const copy = join(folder, 'notes.yaml');
      copyFileSync(spec, copy);
      return copy;
    });
    const seeds = [spec, ...copies].map((path) => webapiDriftSeed(7, knobs, path));
    assert.equal(new Set(seeds).size, 1, `seeds ${seeds.join(', ')}`);

    const changed = join(mkdtempSync(join(tmpdir(), 'checkout-c-')), 'notes.yaml');
    writeFileSync(changed, readFileSync(spec, 'utf8').replace('/v1', '/v9'));
    assert.notEqual(webapiDriftSeed(7, knobs, changed), seeds[0]);
    assert.notEqual(webapiDriftSeed(8, knobs, spec), seeds[0]);
    assert.notEqual(webapiDriftSeed(7, { ...knobs, probability: 0.5 }, spec), seeds[0]);
  });

  test("a data set's spec is known by its portable reference (no file is read)", () => {
    const reference = 'shared:wapiibench/openapi/real_world_specs/not-read.yaml';
    assert.equal(webapiDriftSeed(7, knobs, reference), webapiDriftSeed(7, knobs, reference));
    assert.notEqual(webapiDriftSeed(7, knobs, reference), webapiDriftSeed(7, knobs, `${reference}x`));
  });
});
