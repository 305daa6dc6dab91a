/**
 * What a report calls a run's model where runs are pooled (leaderboard rows, difficulty series): the model
 * reference, plus what tells apart its runs of one suite that were made to be compared: the mode (calls vs react),
 * the transforms (untransformed vs drifted), and the model's configuration (two servers behind one
 * `openai-compatible/<name>`, or two temperatures). Pooled, those runs would hide the difference they measure.
 */
import type { JsonObject } from '../core/json.ts';

export type VariantInput = { summary: { suite: string; model: string; mode: string }; transforms?: string; modelSettings?: string };

/** The transforms of a run as one label: `drift:op=all + rename-tools`; '' for none. */
export function transformsLabel(transforms: readonly { id: string; knobs: JsonObject }[] | undefined): string {
  return (transforms ?? []).map((record) => {
    const knobs = Object.entries(record.knobs).map(([name, value]) => `${name}=${String(value)}`).join(',');
    return knobs === '' ? record.id : `${record.id}:${knobs}`;
  }).join(' + ');
}

/**
 * A labeller for the given runs: `model`, or `model (react)`, `model (untransformed)`, `model (calls, drift:op=all)`,
 * `model (base-url=http://127.0.0.1:8001/v1)`.
 */
export function modelVariantLabeller(reports: readonly VariantInput[]): (report: VariantInput) => string {
  const seen = new Map<string, { modes: Set<string>; transforms: Set<string>; settings: Set<string> }>();
  for (const report of reports) {
    const key = `${report.summary.model}\u0000${report.summary.suite}`;
    const entry = seen.get(key) ?? { modes: new Set(), transforms: new Set(), settings: new Set() };
    entry.modes.add(report.summary.mode);
    entry.transforms.add(report.transforms ?? '');
    entry.settings.add(report.modelSettings ?? '');
    seen.set(key, entry);
  }
  const byMode = new Set<string>();
  const byTransforms = new Set<string>();
  const bySettings = new Set<string>();
  for (const [key, entry] of seen) {
    const model = key.slice(0, key.indexOf('\u0000'));
    if (entry.modes.size > 1) byMode.add(model);
    if (entry.transforms.size > 1) byTransforms.add(model);
    if (entry.settings.size > 1) bySettings.add(model);
  }
  return (report) => {
    const { model, mode } = report.summary;
    const parts = [
      ...(byMode.has(model) ? [mode] : []),
      ...(byTransforms.has(model) ? [report.transforms || 'untransformed'] : []),
      ...(bySettings.has(model) ? [report.modelSettings || 'default settings'] : []),
    ];
    return parts.length === 0 ? model : `${model} (${parts.join(', ')})`;
  };
}
