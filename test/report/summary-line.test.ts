/**
 * The line under a run's title says how many episodes the run has and what became of each: its numbers must add up,
 * so a run stopped early reads as such and not as a run of fewer episodes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderRunTable } from '../../src/report/render-table.ts';
import { renderHtml } from '../../src/report/render-html.ts';
import type { ReportSummary } from '../../src/report/run-report.ts';

function summary(figures: Pick<ReportSummary, 'tasks' | 'trials' | 'episodes' | 'infrastructureErrors' | 'missingEpisodes' | 'tasksIncomplete'>): ReportSummary {
  return {
    runId: 'run-1', suite: 'funcgen', model: 'builtin/planner', mode: 'calls', passRate: 0.5, passRateCI95: [0.4, 0.6],
    metrics: {}, failures: {}, tables: [], ...figures,
  };
}

/** The episodes line, its total checked against its parts. */
function episodesLine(text: string): string {
  const line = text.split('\n')[1];
  const match = /^(\d+) tasks x (\d+) trials = (\d+) episodes: (\d+) scored, (\d+) infrastructure errors \(not scored\)(?:, (\d+) not run yet)?$/.exec(line);
  assert.ok(match, `unexpected line: ${line}`);
  const [tasks, trials, total, scored, errors, missing] = match.slice(1).map((value) => Number(value ?? 0));
  assert.equal(total, tasks * trials, line);
  assert.equal(scored + errors + missing, total, `the parts add up to the total: ${line}`);
  return line;
}

test('a partial run: the total is tasks x trials, and the scored and not-run episodes add up to it', () => {
  const line = episodesLine(renderRunTable(summary({ tasks: 2000, trials: 3, episodes: 928, infrastructureErrors: 0, missingEpisodes: 5072 })));
  assert.equal(line, '2000 tasks x 3 trials = 6000 episodes: 928 scored, 0 infrastructure errors (not scored), 5072 not run yet');
});

test('infrastructure errors are part of the total, and a finished run names no episodes not run', () => {
  const line = episodesLine(renderRunTable(summary({ tasks: 2, trials: 2, episodes: 3, infrastructureErrors: 1, missingEpisodes: 0 })));
  assert.equal(line, '2 tasks x 2 trials = 4 episodes: 3 scored, 1 infrastructure errors (not scored)');
  // A hand-built summary may leave missingEpisodes out: none.
  episodesLine(renderRunTable(summary({ tasks: 3, trials: 1, episodes: 3, infrastructureErrors: 0 })));
});

test('a run stopped while its tasks were stored says so under the episodes line, even with every stored task\'s episodes scored', () => {
  // Killed just after the episodes of its 16 stored tasks were scored: nothing of what it stored is missing.
  const resumable = renderRunTable(summary({ tasks: 16, trials: 1, episodes: 16, infrastructureErrors: 0, missingEpisodes: 0, tasksIncomplete: 'resumable' }));
  assert.equal(episodesLine(resumable), '16 tasks x 1 trials = 16 episodes: 16 scored, 0 infrastructure errors (not scored)');
  assert.equal(resumable.split('\n')[2], 'its tasks were still being stored when it stopped (16 so far): `toolforge run --resume` stores the rest and runs their episodes');
  const startAgain = renderRunTable(summary({ tasks: 16, trials: 2, episodes: 20, infrastructureErrors: 0, missingEpisodes: 12, tasksIncomplete: 'start-again' }));
  episodesLine(startAgain);
  assert.equal(startAgain.split('\n')[2], 'its tasks were still being stored when it stopped (16 so far): nothing can make the rest of them again, so it cannot be continued: start it again');
  // A run with all its tasks has no such line: the pass rate follows the episodes line.
  assert.match(renderRunTable(summary({ tasks: 16, trials: 1, episodes: 16, infrastructureErrors: 0, missingEpisodes: 0 })).split('\n')[2], /^pass rate /);
  assert.throws(() => renderRunTable({ ...summary({ tasks: 1, trials: 1, episodes: 1, infrastructureErrors: 0 }), tasksIncomplete: 'maybe' as never }), /tasksIncomplete/);
});

test('the HTML report of a partial run adds a not-run-yet column, so its runs table adds up too', () => {
  const report = (figures: Parameters<typeof summary>[0]) => ({ summary: summary(figures), startedAt: '2026-11-28T10:00:00.000Z', episodes: [] });
  const html = renderHtml([
    report({ tasks: 2000, trials: 3, episodes: 928, infrastructureErrors: 0, missingEpisodes: 5072 }),
    report({ tasks: 2, trials: 2, episodes: 3, infrastructureErrors: 1, missingEpisodes: 0 }),
  ]);
  const runsTable = html.slice(html.indexOf('<h2>Runs</h2>'), html.indexOf('</table>', html.indexOf('<h2>Runs</h2>')));
  assert.match(runsTable, /<th>scored episodes<\/th><th>infrastructure errors<\/th><th>not run yet<\/th>/);
  assert.match(runsTable, /<td class="number">928<\/td><td class="number">0<\/td><td class="number">5072<\/td>/);
  assert.match(runsTable, /<td class="number">3<\/td><td class="number">1<\/td><td class="number">0<\/td>/);
  // Finished runs only: no such column.
  assert.doesNotMatch(renderHtml([report({ tasks: 2, trials: 2, episodes: 4, infrastructureErrors: 0 })]), /not run yet/);
});
