import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EpisodeRecord } from '../../src/core/episode.ts';
import { ToolForgeError } from '../../src/core/errors.ts';
import { createInfrastructureStop, defaultInfrastructureStopAfter } from '../../src/runner/infrastructure-stop.ts';

const scored = { status: 'scored', error: null } as EpisodeRecord;
const failed = (message: string): EpisodeRecord => ({ status: 'infrastructure-error', error: { code: 'provider.connection', message } }) as EpisodeRecord;

test('the run stops at the limit of infrastructure errors in a row; a scored episode starts the count again', () => {
  const stop = createInfrastructureStop(3, 'toolforge run --resume r1');
  assert.equal(stop.record(failed('a')), undefined);
  assert.equal(stop.record(failed('b')), undefined);
  assert.equal(stop.record(scored), undefined);
  assert.equal(stop.record(failed('c')), undefined);
  assert.equal(stop.record(failed('d')), undefined);
  const error = stop.record(failed('could not connect\n  fix: start the server'));
  assert.ok(error instanceof ToolForgeError);
  assert.equal(error.code, 'provider.connection');
  assert.match(error.message, /the last 3 episodes ended in infrastructure errors, with nothing scored between them; the last one: could not connect\n/);
  assert.match(error.message, /fix: start the server; then run the remaining episodes with 'toolforge run --resume r1'/);
});

test('limit 0 never stops; the default grows with the episodes in flight', () => {
  const stop = createInfrastructureStop(0, 'x');
  for (let index = 0; index < 1000; index += 1) assert.equal(stop.record(failed('down')), undefined);
  assert.deepEqual([1, 10, 64, 256].map(defaultInfrastructureStopAfter), [20, 20, 128, 512]);
});
