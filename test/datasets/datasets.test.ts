import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath, requireData } from '../require-data.ts';
import { locateDataset } from '../../src/core/data-location.ts';
import { ConfigError } from '../../src/core/errors.ts';
import type { Dataset } from '../../src/datasets/index.ts';
import { datasets, fetchDataset, findDataset, sha256Of, upstreamFileUrl, verifyDataset } from '../../src/datasets/index.ts';

/** A pinned manifest of our own fixture files, served by a 127.0.0.1 server laid out like raw.githubusercontent.com. */
const fixtureFiles = ['nestful/samples.json', 'wapiibench/openapi/real_world_specs/notes.yaml', 'stabletoolbench/solvable_queries/test_instruction/G1_instruction.json'];
const fixtureDataset: Dataset = {
  name: 'fixtures',
  suites: [],
  title: 'ToolForge test fixtures',
  repository: 'https://github.com/toolforge-test/fixtures',
  commit: '0123456789abcdef0123456789abcdef01234567',
  license: 'Apache-2.0',
  files: fixtureFiles.map((path) => {
    const bytes = readFileSync(fixturePath(...path.split('/')));
    return { path, sha256: sha256Of(bytes), bytes: bytes.length };
  }),
};
const prefix = `/toolforge-test/fixtures/${fixtureDataset.commit}/`;

let server: Server;
let mirror: string;
const requested: string[] = [];
/** Paths the server answers with other bytes (a tampered mirror). */
const tampered = new Set<string>();

before(async () => {
  server = createServer((request, response) => {
    const url = decodeURIComponent(request.url ?? '');
    requested.push(url);
    const path = url.startsWith(prefix) ? url.slice(prefix.length) : '';
    if (!fixtureFiles.includes(path)) {
      response.statusCode = 404;
      response.end('not found');
      return;
    }
    response.end(tampered.has(path) ? 'not the pinned bytes' : readFileSync(fixturePath(...path.split('/'))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('the pinned manifest', () => {
  test('three data sets, each at a full commit of its GitHub repository, with unique paths and sha256 pins', () => {
    assert.deepEqual(datasets.map((dataset) => dataset.name), ['nestful', 'wapiibench', 'stabletoolbench']);
    for (const dataset of datasets) {
      assert.match(dataset.commit, /^[0-9a-f]{40}$/);
      assert.match(dataset.repository, /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
      assert.equal(new Set(dataset.files.map((file) => file.path)).size, dataset.files.length);
      for (const file of dataset.files) assert.match(file.sha256, /^[0-9a-f]{64}$/, file.path);
    }
    assert.ok(findDataset('nestful')?.files.some((file) => file.path === 'src/icl_examples.json'));
    assert.ok(findDataset('wapiibench')?.files.some((file) => file.path === 'data/synthetic/all/test_data_final.json'));
  });

  test('download addresses: raw.githubusercontent.com/<owner>/<repository>/<commit>/<path>, or the same layout on a mirror', () => {
    const nestful = findDataset('nestful')!;
    const prompts = nestful.files.find((file) => file.path === 'src/PROMPTS.json')!;
    assert.equal(upstreamFileUrl(nestful, prompts), 'https://raw.githubusercontent.com/IBM/NESTFUL/fc2c4123e73500a56185a5fb354f05d1c8b4890c/src/PROMPTS.json');
    assert.equal(upstreamFileUrl(nestful, prompts, 'http://127.0.0.1:9/raw/'), 'http://127.0.0.1:9/raw/IBM/NESTFUL/fc2c4123e73500a56185a5fb354f05d1c8b4890c/src/PROMPTS.json');
  });

  for (const dataset of datasets) {
    test(`the local ${dataset.name} copy matches every pin`, { skip: requireData(dataset.name) }, () => {
      const found = locateDataset(dataset.name)!;
      assert.deepEqual(verifyDataset(dataset, found.directory).filter((check) => check.status !== 'ok'), []);
    });
  }
});

describe('fetch and verify', () => {
  test('downloads every file, checks it, and writes it in place; a second fetch downloads nothing', async () => {
    const directory = join(mkdtempSync(join(tmpdir(), 'toolforge-fetch-')), 'fixtures');
    const before = requested.length;
    const first = await fetchDataset(fixtureDataset, { directory, mirror });
    assert.deepEqual(first.map((result) => result.status), ['downloaded', 'downloaded', 'downloaded']);
    assert.equal(requested.length - before, 3);
    for (const path of fixtureFiles) assert.deepEqual(readFileSync(join(directory, ...path.split('/'))), readFileSync(fixturePath(...path.split('/'))));
    assert.deepEqual(readdirSync(join(directory, 'nestful')), ['samples.json'], 'no temporary file is left');
    assert.deepEqual(verifyDataset(fixtureDataset, directory).map((check) => check.status), ['ok', 'ok', 'ok']);

    const second = await fetchDataset(fixtureDataset, { directory, mirror });
    assert.deepEqual(second.map((result) => result.status), ['kept', 'kept', 'kept']);
    assert.equal(requested.length - before, 3);
  });

  test('verify names a changed or missing file; fetch repairs only that file', async () => {
    const directory = join(mkdtempSync(join(tmpdir(), 'toolforge-fetch-')), 'fixtures');
    await fetchDataset(fixtureDataset, { directory, mirror });
    const changed = join(directory, 'nestful', 'samples.json');
    writeFileSync(changed, '[]');
    const checks = verifyDataset(fixtureDataset, directory);
    assert.deepEqual(checks[0], { status: 'mismatch', file: fixtureDataset.files[0], actualSha256: sha256Of(Buffer.from('[]')), actualBytes: 2 });
    assert.equal(verifyDataset(fixtureDataset, join(directory, 'elsewhere'))[1]!.status, 'missing');
    const repaired = await fetchDataset(fixtureDataset, { directory, mirror });
    assert.deepEqual(repaired.map((result) => result.status), ['downloaded', 'kept', 'kept']);
    assert.deepEqual(verifyDataset(fixtureDataset, directory).map((check) => check.status), ['ok', 'ok', 'ok']);
  });

  test('bytes that do not match the pin are refused, naming the file and the fix; the existing copy is untouched', async () => {
    const directory = join(mkdtempSync(join(tmpdir(), 'toolforge-fetch-')), 'fixtures');
    await fetchDataset(fixtureDataset, { directory, mirror });
    const spec = join(directory, 'wapiibench', 'openapi', 'real_world_specs', 'notes.yaml');
    writeFileSync(spec, 'locally edited');
    tampered.add(fixtureFiles[1]!);
    try {
      await assert.rejects(fetchDataset(fixtureDataset, { directory, mirror }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.code, 'data.checksum-mismatch');
        assert.match(error.message, /^fixtures\/wapiibench\/openapi\/real_world_specs\/notes\.yaml downloaded from http:\/\/127\.0\.0\.1:\d+\/toolforge-test\/fixtures\/0123456789abcdef0123456789abcdef01234567\/wapiibench\/openapi\/real_world_specs\/notes\.yaml has sha256 [0-9a-f]{64} \(20 bytes\), but the pinned file has sha256 /);
        // The retry it suggests is the same command, through the same mirror.
        assert.match(error.fix ?? '', /^run `toolforge data fetch fixtures --mirror http:\/\/127\.0\.0\.1:\d+` again/);
        return true;
      });
    } finally {
      tampered.clear();
    }
    assert.equal(readFileSync(spec, 'utf8'), 'locally edited');
    assert.deepEqual(readdirSync(join(directory, 'wapiibench', 'openapi', 'real_world_specs')), ['notes.yaml']);
  });

  test('an HTTP error or no connection is data.unreachable, and says what to do offline', async () => {
    const directory = join(mkdtempSync(join(tmpdir(), 'toolforge-fetch-')), 'fixtures');
    const missing: Dataset = { ...fixtureDataset, files: [{ path: 'no/such/file.json', sha256: '0'.repeat(64), bytes: 1 }] };
    await assert.rejects(fetchDataset(missing, { directory, mirror }),
      (error: unknown) => error instanceof ConfigError && error.code === 'data.unreachable' && /answered HTTP 404/.test(error.message));

    // A port nothing listens on: the connection is refused, as on a machine without network.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(fetchDataset(fixtureDataset, { directory, mirror: `http://127.0.0.1:${port}` }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, 'data.unreachable');
      assert.match(error.message, /^cannot download fixtures\/nestful\/samples\.json from http:\/\/127\.0\.0\.1:\d+\/.*ECONNREFUSED/);
      assert.match(error.fix ?? '', /export TOOLFORGE_DATA=<folder>/);
      assert.match(error.fix ?? '', /--set data=<file>/);
      assert.match(error.fix ?? '', new RegExp(`place it at ${directory}`));
      return true;
    });
    assert.equal(existsSync(directory), false, 'nothing is written when nothing was downloaded');
  });
});
