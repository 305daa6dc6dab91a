/**
 * A worker's module is prepared once and each program starts from its memory image: after any program, a restore
 * must give back the prepared memory byte for byte, including what lies past the image when the program grew it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { prepareModule } from '../../src/sandbox/run-program.ts';

function digest(memory: WebAssembly.Memory, length = memory.buffer.byteLength): string {
  return createHash('sha256').update(new Uint8Array(memory.buffer, 0, length)).digest('hex');
}

test('a restore puts the memory back byte for byte, zeroing what a program wrote past the image', async () => {
  const memory = new WebAssembly.Memory({ initial: 256, maximum: 2048 });
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant as unknown as QuickJSSyncVariant, { wasmMemory: memory }));
  const prepared = prepareModule(module, memory);
  const preparedLength = memory.buffer.byteLength;
  const prepared0 = digest(memory);
  const { vm } = prepared;
  // 40 MB of strings: the heap outgrows the image and the memory its first size.
  const result = vm.evalCode("globalThis.kept = []; for (let i = 0; i < 10000; i += 1) kept.push('y'.repeat(4000) + i); kept.length");
  assert.equal(vm.dump(vm.unwrapResult(result)), 10000);
  assert.ok(memory.buffer.byteLength > preparedLength, 'the program grew the memory');
  assert.notEqual(digest(memory, preparedLength), prepared0);
  prepared.restore();
  assert.equal(digest(memory, preparedLength), prepared0);
  assert.equal(new Uint8Array(memory.buffer, preparedLength).every((byte) => byte === 0), true, 'grown memory zeroed');
  // The restored state runs programs as the prepared one did: the global is gone and the installer is callable.
  assert.equal(vm.dump(vm.unwrapResult(vm.evalCode('typeof globalThis.kept'))), 'undefined');
  assert.equal(vm.typeof(prepared.installer), 'function');
});

test('a restore zeroes what a deep recursion left in the C stack, which the image keeps as chunks of zeros', async () => {
  const memory = new WebAssembly.Memory({ initial: 256, maximum: 2048 });
  const module = await newQuickJSWASMModuleFromVariant(newVariant(variant as unknown as QuickJSSyncVariant, { wasmMemory: memory }));
  const prepared = prepareModule(module, memory);
  const prepared0 = digest(memory);
  const { runtime, vm } = prepared;
  runtime.setMaxStackSize(4 * 1024 * 1024);
  // Deep enough to write far into the stack's reserve, which was zero when the image was made.
  const result = vm.evalCode('function down(n) { return n === 0 ? 0 : 1 + down(n - 1) } down(1500)');
  assert.equal(vm.dump(vm.unwrapResult(result)), 1500);
  assert.equal(memory.buffer.byteLength, 256 * 64 * 1024, 'the memory did not grow: only the image\'s own chunks changed');
  assert.notEqual(digest(memory), prepared0);
  prepared.restore();
  assert.equal(digest(memory), prepared0);
});
