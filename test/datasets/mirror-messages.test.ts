/**
 * Every message about `data fetch --mirror` gives an example of a mirror (a server laid out like
 * raw.githubusercontent.com: `<mirror>/<owner>/<repository>/<commit>/<path>`), never a model endpoint
 * (`.../v1`), and every bad --mirror value (not a URL, another scheme, a query, a server that is not there or
 * does not serve the files) is refused naming --mirror and the fix. The mirror is a 127.0.0.1 server: no network.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/core/errors.ts';
import { fetchDataset, findDataset, offlineAdvice } from '../../src/datasets/index.ts';
import { keylessEnvironment, runCli, temporaryDirectory } from '../e2e/run-cli.ts';

const nestful = findDataset('nestful')!;
/** A file a nestful mirror must serve, as the messages show it. */
const nestfulLicensePath = `/IBM/NESTFUL/${nestful.commit}/LICENSE`;

function withoutData(): Record<string, string | undefined> {
  return { ...keylessEnvironment(), TOOLFORGE_DATA: temporaryDirectory() };
}

/** A correct mirror example: an http(s) base URL (the user's own, or `example`), then the layout it must serve. No model endpoint. */
function assertMirrorExample(text: string, { example = true } = {}): void {
  if (example) assert.match(text, /--mirror http:\/\/127\.0\.0\.1:8080\b/, text);
  assert.match(text, /<owner>\/<repository>\/<commit>\/<path>/, text);
  assert.doesNotMatch(text, /\/v1\b/, text);
}

let notFound: Server;
let notFoundUrl: string;

before(async () => {
  // A server that is there but serves nothing: a mirror of something else, or the wrong base path.
  notFound = createServer((_request, response) => {
    response.statusCode = 404;
    response.end('not found');
  });
  await new Promise<void>((resolve) => notFound.listen(0, '127.0.0.1', resolve));
  notFoundUrl = `http://127.0.0.1:${(notFound.address() as AddressInfo).port}/raw`;
});

after(async () => {
  await new Promise((resolve) => notFound.close(resolve));
});

describe('data fetch --mirror: what every message says', () => {
  test('the help of data fetch gives a mirror as an example, with the layout it serves', async () => {
    const help = await runCli(['data', 'fetch', '--help'], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(help.code, 0, help.stderr);
    assertMirrorExample(help.stdout);
    assert.match(help.stdout, new RegExp(`http://127\\.0\\.0\\.1:8080${nestfulLicensePath}`));
  });

  // Usage errors, as commander words them ("option '--mirror <url>' argument '<value>' is invalid."), then what is wrong and the fix.
  const invalid = (value: string, rest: string): RegExp => new RegExp(`^error: option '--mirror <url>' argument '${value.replace(/[.?/]/g, '\\$&')}' is invalid\\. ${rest}`);
  const badValues: [string, RegExp][] = [
    ['notaurl', invalid('notaurl', 'It is not a URL: pass the base URL of a mirror with its scheme, e\\.g\\. --mirror http://127\\.0\\.0\\.1:8080;')],
    ['ftp://mirror.example/raw', invalid('ftp://mirror.example/raw', 'It uses ftp:, and a mirror is fetched over http:// or https://: pass an http\\(s\\) URL, e\\.g\\. --mirror http://127\\.0\\.0\\.1:8080;')],
    ['localhost:8080', invalid('localhost:8080', 'It has no scheme, and a mirror is fetched over http:// or https://: e\\.g\\. --mirror http://localhost:8080;')],
    ['mirror.lan/raw', invalid('mirror.lan/raw', 'It is not a URL: pass the base URL of a mirror with its scheme, e\\.g\\. --mirror http://mirror\\.lan/raw;')],
    ['http://127.0.0.1:8080/raw?token=1', invalid('http://127.0.0.1:8080/raw?token=1', 'It has a query or fragment, .*: pass the base URL alone, e\\.g\\. --mirror http://127\\.0\\.0\\.1:8080/raw;')],
  ];
  for (const [value, message] of badValues) {
    test(`--mirror ${value} is refused before anything is fetched, naming --mirror and a mirror example`, async () => {
      const env = withoutData();
      const result = await runCli(['data', 'fetch', 'nestful', '--mirror', value], { cwd: temporaryDirectory(), env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /\n {2}fix: see 'toolforge data fetch --help'/, 'whose help has the example too');
      assertMirrorExample(result.stderr);
      assert.equal(existsSync(join(env.TOOLFORGE_DATA!, 'nestful')), false, 'nothing is written');
    });
  }

  test('a mirror nothing listens on: the error names --mirror and the address asked for, and the fix says to start it or drop --mirror', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const mirror = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const result = await runCli(['data', 'fetch', 'nestful', '--mirror', mirror], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`^error: cannot download nestful/LICENSE from ${mirror.replaceAll('.', '\\.')}${nestfulLicensePath}: .*ECONNREFUSED.*; the --mirror ${mirror.replaceAll('.', '\\.')} could not be reached$`, 'm'));
    assert.match(result.stderr, new RegExp(`start the mirror at ${mirror.replaceAll('.', '\\.')} \\(or correct --mirror\\)`));
    assert.match(result.stderr, new RegExp(`${mirror.replaceAll('.', '\\.')}${nestfulLicensePath}`), 'it shows the address that was asked for');
    assert.match(result.stderr, /drop --mirror to download from https:\/\/raw\.githubusercontent\.com/);
    // It has a mirror already: it is not told to get one.
    assert.doesNotMatch(result.stderr, /download through a mirror/);
    assertMirrorExample(result.stderr, { example: false });
  });

  test('a mirror that does not serve the files: the error names --mirror and the address it must serve', async () => {
    const result = await runCli(['data', 'fetch', 'nestful', '--mirror', notFoundUrl], { cwd: temporaryDirectory(), env: withoutData() });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`^error: the --mirror ${notFoundUrl.replaceAll('.', '\\.')} does not serve nestful/LICENSE: ${notFoundUrl.replaceAll('.', '\\.')}${nestfulLicensePath} answered HTTP 404`, 'm'));
    assert.match(result.stderr, new RegExp(`fix: a mirror serves each pinned file at <mirror>/<owner>/<repository>/<commit>/<path>, here ${notFoundUrl.replaceAll('.', '\\.')}${nestfulLicensePath}`));
    assertMirrorExample(result.stderr, { example: false });
  });

  test('a library caller\'s bad mirror is refused before anything is fetched, with the same words', async () => {
    const directory = join(mkdtempSync(join(tmpdir(), 'toolforge-mirror-')), 'nestful');
    await assert.rejects(fetchDataset(nestful, { directory, mirror: 'ftp://mirror.example/raw' }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, 'config.invalid');
      assert.match(error.message, /^--mirror 'ftp:\/\/mirror\.example\/raw' uses ftp:, and a mirror is fetched over http:\/\/ or https:\/\/\n {2}fix: /);
      assertMirrorExample(error.message);
      return true;
    });
    assert.equal(existsSync(directory), false);
  });

  test('the offline advice of every download error gives a mirror example, not a bare --mirror <url>', () => {
    const advice = offlineAdvice(nestful, join(mkdtempSync(join(tmpdir(), 'toolforge-mirror-')), 'nestful'));
    assertMirrorExample(advice);
    assert.match(advice, new RegExp(`http://127\\.0\\.0\\.1:8080${nestfulLicensePath}`));
  });
});
