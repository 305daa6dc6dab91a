import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { capText, fullTextLength, isCutText, textCaps } from '../../src/core/cap-text.ts';

describe('capText', () => {
  test('text within the cap is returned as is', () => {
    assert.equal(capText('abc', 3), 'abc');
    assert.equal(fullTextLength('abc'), 3);
    assert.equal(isCutText('abc'), false);
  });

  test('a cut text keeps its head and a marker with the cut and the full length, within the cap', () => {
    const capped = capText('x'.repeat(100), 60);
    assert.equal(capped, `${'x'.repeat(27)}…[cut 73 characters; 100 in all]`);
    assert.equal(capped.length, 59);
    assert.equal(fullTextLength(capped), 100);
    assert.equal(isCutText(capped), true);
  });

  test('a cap shorter than the marker gives the marker alone', () => {
    assert.equal(capText('y'.repeat(50), 10), '…[cut 50 characters; 50 in all]');
  });

  test('a surrogate pair is never split', () => {
    const capped = capText(`${'a'.repeat(26)}😀${'b'.repeat(100)}`, 60);
    assert.equal(capped, `${'a'.repeat(26)}…[cut 102 characters; 128 in all]`);
  });

  test('documented sizes', () => {
    assert.deepEqual(textCaps, { message: 4096, field: 16384, content: 65536 });
  });
});
