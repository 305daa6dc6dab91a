import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewriteStaticImports, wrapProgram } from '../../src/sandbox/program-source.ts';

test('static imports become require calls on the same line', () => {
  const code = [
    "import axios from 'axios';",
    'import * as ax from "axios"',
    "import { default as client, AxiosError as Failure } from 'axios';",
    "import 'form-data';",
    "const x = 'import y from \"z\"';",
  ].join('\n');
  assert.equal(rewriteStaticImports(code), [
    'const axios = require("axios");',
    'const ax = require("axios");',
    'const { default: client, AxiosError: Failure } = require("axios");',
    'require("form-data");',
    "const x = 'import y from \"z\"';",
  ].join('\n'));
});

test('the program becomes the body of an async arrow, one line down', () => {
  assert.equal(wrapProgram('return 1;'), '(async () => {\nreturn 1;\n})');
});
