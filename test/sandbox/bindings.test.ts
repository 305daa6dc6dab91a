import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/core/errors.ts';
import { flattenBindings } from '../../src/sandbox/bindings.ts';

test('functions, { call, returns } and namespaces flatten to one entry per callable path', () => {
  const create = async () => ({ id: 1 });
  const record = () => undefined;
  const flat = flattenBindings({ api: { create }, RESULT: { call: record, returns: 'value' } });
  assert.deepEqual([...flat.entries()].map(([key, value]) => [key, value.path, value.returns, value.call]), [
    ['api.create', ['api', 'create'], 'promise', create],
    ['RESULT', ['RESULT'], 'value', record],
  ]);
});

test('bad bindings are ConfigErrors naming the field', () => {
  assert.throws(() => flattenBindings({ 'bad-name': () => 1 }), (error: unknown) => error instanceof ConfigError && /bad-name/.test(error.message));
  assert.throws(() => flattenBindings({ fetch: () => 1 }), /program\.bindings\.fetch would replace a sandbox global/);
  assert.throws(() => flattenBindings({ api: { x: 5 as unknown as () => void } }), /program\.bindings\.api\.x is not a function/);
  assert.throws(() => flattenBindings({ api: 'x' as unknown as () => void }), /program\.bindings\.api is not a function/);
});
