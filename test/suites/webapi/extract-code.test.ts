import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleProgram, extractAxiosCall, fencedCode } from '../../../src/suites/webapi/extract-code.ts';
import { programOf } from '../../../src/suites/webapi/run-program.ts';

const fullStarter = "// List users.\nconst axios = require('axios');\n\naxios.";
const argumentStarter = "// List users.\nconst axios = require('axios');\n\naxios.get('https://x.test/users',";

describe('excess code handling (reference _extract_axios_call)', () => {
  test('cutoff points in priority order', () => {
    assert.deepEqual(extractAxiosCall("x;\naxios.get('u').then((r) => r);"), { type: 'call', code: "axios.get('u');\n" });
    assert.deepEqual(extractAxiosCall("axios.get('u', {params: {a: 1}}).catch(() => 0);"), { type: 'call', code: "axios.get('u', {params: {a: 1}});\n" });
    assert.deepEqual(extractAxiosCall("axios.post('u', {a: {b: 1}});\nconsole.log(1);"), { type: 'call', code: "axios.post('u', {a: {b: 1}});\n" });
    assert.deepEqual(extractAxiosCall("axios.get('u')\n);"), { type: 'call', code: "axios.get('u')\n);\n" });
    assert.deepEqual(extractAxiosCall("axios.get('u')\naxios.post('v')"), { type: 'call', code: "axios.get('u')" });
    assert.deepEqual(extractAxiosCall("axios.get('u')\n```"), { type: 'call', code: "axios.get('u')\n" });
    // `.then` wins over an earlier `);` because it is tried first, as in the reference.
    assert.deepEqual(extractAxiosCall("axios.get('u');\nfoo().then(x);"), { type: 'call', code: "axios.get('u');\nfoo();\n" });
  });

  test('absent and incomplete requests', () => {
    assert.deepEqual(extractAxiosCall('fetch("u")'), { type: 'absent-request' });
    assert.deepEqual(extractAxiosCall("axios.get('u'"), { type: 'incomplete-request' });
  });
});

describe('assembling the program', () => {
  test('completion: the starter is continued, once', () => {
    assert.equal(programOf(fullStarter, "get('https://x.test/users');", 'completions'), `${fullStarter}get('https://x.test/users');`);
    assert.equal(programOf(fullStarter, `${fullStarter}get('u');`, 'completions'), `${fullStarter}get('u');`);
  });

  test('chat: code from the fence replaces the starter from its first axios call', () => {
    const answer = "Here you go:\n```javascript\n// List users.\nconst axios = require('axios');\n\naxios.get('https://x.test/users', { params: { limit: 5 } });\n```\nThat sends it.";
    assert.equal(assembleProgram(argumentStarter, answer, 'chat'), "// List users.\nconst axios = require('axios');\n\naxios.get('https://x.test/users', { params: { limit: 5 } });\n");
    assert.equal(fencedCode('```js\nlet a;\n```\n```javascript\naxios.get(1);\n```'), 'axios.get(1);\n', 'the fence holding the call is preferred');
    assert.equal(assembleProgram(argumentStarter, " { params: { limit: 5 } });", 'chat'), `${argumentStarter} { params: { limit: 5 } });`, 'a bare continuation extends the starter');
  });
});
