/**
 * `--transform` as a user writes it: `drift:all` and `perturb:case-mix` (the value of the transform's first
 * enum knob, as the issue and the paper name them) mean `drift:op=all` and `perturb:kind=case-mix`; bad knobs are
 * refused with an error that names the transform, the knob and a `--transform` fix (not `--set`, which is for
 * suite knobs), and the CLI exits 2 with it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/errors.ts';
import { parseTransformRequest } from '../../src/transforms/registry.ts';
import { runCli, temporaryDirectory } from '../e2e/run-cli.ts';

function refusal(text: string): ConfigError {
  try {
    parseTransformRequest(text);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail(`${text} was accepted`);
}

describe('--transform requests', () => {
  test('a bare value sets the first enum knob: drift:all, drift:nest,probability=0.5, perturb:case-mix, rename-tools:suffix', () => {
    assert.deepEqual(parseTransformRequest('drift:all').knobs, parseTransformRequest('drift:op=all').knobs);
    assert.deepEqual(parseTransformRequest('drift:nest,probability=0.5').knobs, { op: 'nest', probability: 0.5 });
    assert.deepEqual(parseTransformRequest('perturb:case-mix').knobs, { kind: 'case-mix' });
    assert.deepEqual(parseTransformRequest('rename-tools:suffix').knobs, parseTransformRequest('rename-tools:style=suffix').knobs);
  });

  test('errors name the transform, the knob and a --transform fix', () => {
    const badValue = refusal('drift:op=melt');
    assert.equal(badValue.code, 'config.invalid-knob');
    assert.equal(badValue.message, "--transform drift:op=melt: transform drift knob 'op' cannot be 'melt'\n  fix: --transform drift:op=<endpoint|rename|type|default-flip|nest|required-swap|all>");
    const badBare = refusal('drift:melt');
    assert.equal(badBare.code, 'config.invalid-knob');
    assert.match(badBare.message, /knob 'op' cannot be 'melt'\n {2}fix: --transform drift:op=<endpoint\|/);
    assert.match(refusal('drift:probability=2').message, /knob 'probability' cannot be '2'\n {2}fix: --transform drift:probability=<number in \[0, 1\]>/);
    const unknown = refusal('drift:strength=3');
    assert.equal(unknown.code, 'config.unknown-knob');
    assert.equal(unknown.message, "--transform drift:strength=3: transform drift has no knob 'strength'\n  fix: use one of: op, probability (e.g. --transform drift:op=all)");
    assert.match(refusal('drift:all,nest').message, /'nest' is not name=value[\s\S]*fix: write --transform drift:name=value,\.\.\. with name one of: op, probability/);
    assert.match(refusal('drift:op').message, /'op' is not name=value[\s\S]*fix: write --transform drift:name=value,\.\.\. with name one of: op, probability/);
    assert.match(refusal('identity:x').message, /'x' is not name=value[\s\S]*fix: --transform identity takes no knobs/);
    assert.match(refusal('perturb:kind=melt').message, /fix: --transform perturb:kind=<distractor\|case-mix\|punctuation\|paraphrase>/);
  });

  test('CLI: drift:all runs; a bad transform knob exits 2 naming the knob and the fix', async () => {
    const cwd = temporaryDirectory();
    const ran = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--mode', 'calls', '--transform', 'drift:all', '--json'], { cwd });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal((JSON.parse(ran.stdout) as { passRate: number }).passRate, 1);
    const refused = await runCli(['run', 'nestful', '--model', 'builtin/oracle', '--count', '2', '--transform', 'perturb:kind=typos'], { cwd });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /transform perturb knob 'kind' cannot be 'typos'\n {2}fix: --transform perturb:kind=<distractor\|case-mix\|punctuation\|paraphrase>/);
  });
});
