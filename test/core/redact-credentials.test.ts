import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrlPasswords } from '../../src/core/redact-credentials.ts';
import { recordedArguments } from '../../src/cli/recorded-arguments.ts';

test('the password of every URL is masked, wherever it sits in the text; the rest is left as it was', () => {
  assert.equal(redactUrlPasswords('postgres://team:s3cret@db.example:5432/results'), 'postgres://team:***@db.example:5432/results');
  assert.equal(redactUrlPasswords('postgres://team@db/results'), 'postgres://team@db/results');
  assert.equal(redactUrlPasswords('cannot connect to postgresql://a:b@h/d and https://u:k3y@proxy/v1'), 'cannot connect to postgresql://a:***@h/d and https://u:***@proxy/v1');
  assert.equal(redactUrlPasswords('http://127.0.0.1:8080/v1'), 'http://127.0.0.1:8080/v1', 'a port is not a password');
  assert.equal(redactUrlPasswords('results.db'), 'results.db');
  // The authority ends at its last '@', as a URL parser reads it: all of 'sec@ret' is the password.
  assert.equal(redactUrlPasswords("--db 'postgres://toolforge:sec@ret@127.0.0.1:55432/postgres'"), "--db 'postgres://toolforge:***@127.0.0.1:55432/postgres'");
  assert.equal(redactUrlPasswords('postgres://u:a@b@c@h'), 'postgres://u:***@h');
  assert.equal(redactUrlPasswords('http://host:8080?to=a@b'), 'http://host:8080?to=a@b', "an '@' past the authority is not a password's end");
});

test('a recorded command line masks URL passwords in separate and --flag=value arguments', () => {
  assert.deepEqual(
    recordedArguments(['run', 'funcgen', '--db', 'postgres://u:pw@h/d', '--base-url=https://me:key@llm.example/v1', '--set', 'simulator-base-url=http://a:b@c/v1']),
    ['run', 'funcgen', '--db', 'postgres://u:***@h/d', '--base-url=https://me:***@llm.example/v1', '--set', 'simulator-base-url=http://a:***@c/v1'],
  );
});
