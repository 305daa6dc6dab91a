/** The tensor API as synchronous sandbox bindings over host-held tensors. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox, type Sandbox } from '../../../../src/sandbox/index.ts';
import { createTensorBackend } from '../../../../src/suites/stateful/tensor/tensor-backend.ts';

let sandbox: Sandbox;
before(() => {
  sandbox = createSandbox({ poolSize: 1 });
});
after(async () => {
  await sandbox.dispose();
});

const fixtures = { tensors: { user_tensor_0: { shape: [2, 3], values: [1, 2, 3, 4, 5, 6] }, user_weight_0: { shape: [1, 2], values: [1, 1] } } };

test('model code calls torch.* and F.* without await; handles expose shape; RESULT resolves to values', async () => {
  const backend = await createTensorBackend(fixtures);
  const result = await sandbox.run({
    code: `const t = torch.load('user_tensor_0');
const tt = torch.transpose(t, 0, 1);
const parts = torch.split(tt, 2, 0);
const joined = torch.cat([parts[0], parts[1]], 0);
const y = F.linear(joined, torch.load('user_weight_0'));
let viewError;
try { torch.view(tt, [6]); } catch (error) { viewError = error.name + ': ' + error.message; }
return { shape: tt.shape, y, viewError, parts: parts.length };`,
    bindings: backend.bindings,
  });
  assert.equal(result.status, 'completed', JSON.stringify(result));
  const value = backend.resolveResult(result.status === 'completed' ? result.value : undefined) as Record<string, unknown>;
  assert.deepEqual(value.shape, [3, 2]);
  assert.deepEqual(value.y, { shape: [3, 1], values: [5, 7, 9] });
  assert.equal(value.parts, 2);
  assert.match(value.viewError as string, /^RuntimeError: view size is not compatible/);
  assert.deepEqual(backend.snapshotState(), {});
});

test('unknown fixtures, forged handles and the host file system are out of reach', async () => {
  const backend = await createTensorBackend(fixtures);
  const result = await sandbox.run({
    code: `const outcomes = {};
try { torch.load('/etc/passwd'); } catch (error) { outcomes.load = error.message; }
try { torch.transpose({ __tensor__: 'tensor_999', shape: [1] }, 0, 0); } catch (error) { outcomes.forged = error.name; }
try { require('fs'); } catch (error) { outcomes.fs = 'refused'; }
try { await axios.get('http://127.0.0.1:8080/'); outcomes.http = 'reached'; } catch (error) { outcomes.http = error.code; }
return outcomes;`,
    bindings: backend.bindings,
    http: { respond: backend.http },
  });
  assert.equal(result.status, 'completed', JSON.stringify(result));
  assert.deepEqual(result.status === 'completed' && result.value, { load: "FileNotFoundError: no saved tensor named '/etc/passwd'", forged: 'TypeError', fs: 'refused', http: 'ERR_NETWORK' });
});
