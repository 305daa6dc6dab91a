/**
 * Runs of one model reference made with different endpoints or generation settings are told apart by a report: the
 * leaderboard has a row per configuration, the runs table a `model settings` column, and the JSON each run's label.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { modelSettingsLabel } from '../../src/models/model-settings-label.ts';
import { startReportServer } from '../../src/report/report-server.ts';
import { startConversationServer } from '../fakes/conversation-server.ts';
import { runCli, temporaryDirectory } from './run-cli.ts';

test('a settings label names the endpoint first, then each setting by name, in a fixed order', () => {
  assert.equal(modelSettingsLabel(null, {}), '');
  assert.equal(modelSettingsLabel('http://127.0.0.1:8001/v1', { temperature: 0, stop: ['END', 'STOP'], strictTools: true, maxOutputTokens: 256 }),
    'base-url=http://127.0.0.1:8001/v1, maxOutputTokens=256, stop=["END","STOP"], strictTools=true, temperature=0');
});

test('one model at two temperatures and at the default: three leaderboard rows, and runs, report and viewer say each run\'s settings', async () => {
  const directory = temporaryDirectory();
  const database = join(directory, 'results.db');
  // A provider model (built-in ones take no settings), served by a stand-in that answers every request; its endpoint
  // comes from the environment, so the runs differ in their settings alone.
  const stand = await startConversationServer({ toolTurns: 0 });
  const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: stand.baseUrl };
  try {
    for (const flags of [['--temperature', '0'], ['--temperature', '0.7'], []]) {
      const result = await runCli(['run', 'funcgen', '--model', 'openai/gpt-4.1-mini', '--count', '2', '--db', database, ...flags], { cwd: directory, env });
      assert.equal(result.code, 0, result.stderr);
    }
  } finally {
    await stand.close();
  }
  const json = await runCli(['report', '--db', database, '--format', 'json'], { cwd: directory });
  assert.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as { runs: { modelSettings: string | null }[]; leaderboard: { rows: { model: string }[] } };
  assert.deepEqual(report.runs.map((run) => run.modelSettings).sort(), [null, 'temperature=0', 'temperature=0.7'].sort());
  assert.deepEqual(report.leaderboard.rows.map((row) => row.model), ['openai/gpt-4.1-mini (default settings)', 'openai/gpt-4.1-mini (temperature=0)', 'openai/gpt-4.1-mini (temperature=0.7)']);
  const table = await runCli(['report', '--db', database], { cwd: directory });
  assert.match(table.stdout, /^run +suite +model +mode +model settings +episodes/m);
  assert.match(table.stdout, / calls +temperature=0\.7 +2 +\d+\.\d%/);
  const runs = await runCli(['runs', '--db', database], { cwd: directory });
  assert.match(runs.stdout, /^run +created +suite +model +model settings +mode /m);
  assert.match(runs.stdout, / openai\/gpt-4\.1-mini +temperature=0\.7 +calls \(default\) +finished /);
  assert.match(runs.stdout, / openai\/gpt-4\.1-mini +- +calls \(default\) +finished /);
  // The viewer: a column on the index, and the run page beside the model.
  const server = await startReportServer({ dbPath: database, port: 0 });
  try {
    const index = await (await fetch(server.url)).text();
    assert.match(index, /<th><a [^>]*>model settings<\/a><\/th>/);
    assert.match(index, /<td>openai\/gpt-4\.1-mini<\/td><td>temperature=0\.7<\/td>/);
    const warm = (JSON.parse((await runCli(['runs', '--json', '--db', database], { cwd: directory })).stdout) as { id: string; modelSettings: string | null }[])
      .find((run) => run.modelSettings === 'temperature=0.7');
    assert.ok(warm);
    assert.match(await (await fetch(`${server.url}runs/${warm.id}`)).text(), /model <b>openai\/gpt-4\.1-mini<\/b> \(temperature=0\.7\), /);
  } finally {
    await server.close();
  }
});
