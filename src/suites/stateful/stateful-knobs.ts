/** The suite's knobs (`--set name=value`) and their parsed form. */
import type { JsonObject } from '../../core/json.ts';
import type { Knob } from '../knob.ts';
import { branchModes, type BranchMode } from './program-generator.ts';
import { scenarioIds, type ScenarioId } from './stateful-backend.ts';

export const statefulKnobs: readonly Knob[] = [
  { type: 'enum', name: 'scenario', description: 'the backend: session (REST service over SQLite), tensor (PyTorch-semantics tensors) or voice (voice-lab MCP server)', default: 'session', values: scenarioIds },
  { type: 'integer', name: 'calls', description: 'API calls on every execution path of a program (paper: 5)', default: 5, min: 1, max: 12 },
  { type: 'enum', name: 'branch', description: 'sampled: one if/else at a sampled position (or none); none: straight-line programs', default: 'sampled', values: branchModes },
  { type: 'boolean', name: 'coverage', description: "pair-transition coverage guidance; false is the paper's w/o-COV ablation (uniform choice)", default: true },
  { type: 'enum', name: 'phrasing', description: 'instruction text: a deterministic template, or the paper\'s generator/evaluator agents over --phrasing-model (only ok translations kept)', default: 'template', values: ['template', 'model'] },
];

export type StatefulParams = { scenario: ScenarioId; calls: number; branch: BranchMode; coverage: boolean; phrasing: 'template' | 'model' };

/** The knobs as resolveKnobs filled them (values already checked). */
export function parseStatefulParams(params: JsonObject): StatefulParams {
  return {
    scenario: scenarioIds.includes(params.scenario as ScenarioId) ? params.scenario as ScenarioId : 'session',
    calls: typeof params.calls === 'number' ? params.calls : 5,
    branch: params.branch === 'none' ? 'none' : 'sampled',
    coverage: params.coverage !== false,
    phrasing: params.phrasing === 'model' ? 'model' : 'template',
  };
}
