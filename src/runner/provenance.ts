import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { JsonObject } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import { repositoryRoot } from '../core/data-location.ts';
import type { GenerationSettings } from '../models/spec.ts';
import type { Provenance, StoredTaskRecipe, StoredTasksFile } from '../store/stored-run.ts';
import type { Suite } from '../suites/spec.ts';

export type ProvenanceInput = {
  suite: Suite;
  modelRef: string;
  baseUrl: string | null;
  settings: GenerationSettings;
  seed: number;
  params: JsonObject;
  mode: Mode | null;
  trials: number;
  cliArgs: string[];
  transforms?: { id: string; version: string; knobs: JsonObject }[];
  keepRaw?: boolean;
  rescoredFrom?: string;
  taskRecipe?: StoredTaskRecipe;
  tasksFile?: StoredTasksFile;
  /** The replay file the model reads, when it is not the path `modelRef` names from the working folder. */
  modelFile?: string;
};

/**
 * Everything needed to trace a run's numbers back to code, data and configuration. `directory` is
 * the checkout whose git state is recorded (default: this repository).
 */
const replayPrefix = 'replay/';

export function collectProvenance(input: ProvenanceInput, options: { directory?: string } = {}): Provenance {
  return {
    toolforgeVersion: toolforgeVersion(),
    git: gitState(options.directory ?? repositoryRoot),
    nodeVersion: process.version,
    platform: `${process.platform}-${process.arch}`,
    suite: { id: input.suite.id, version: input.suite.version },
    model: { ref: input.modelRef, baseUrl: input.baseUrl, settings: input.settings },
    seed: input.seed,
    params: input.params,
    mode: input.mode,
    trials: input.trials,
    cliArgs: input.cliArgs,
    ...(input.transforms && input.transforms.length > 0 ? { transforms: input.transforms } : {}),
    ...(input.keepRaw ? { keepRaw: true } : {}),
    ...(input.rescoredFrom ? { rescoredFrom: input.rescoredFrom } : {}),
    ...(input.modelRef.startsWith(replayPrefix) ? { modelFile: input.modelFile ?? resolve(input.modelRef.slice(replayPrefix.length)) } : {}),
    ...(input.taskRecipe ? { taskRecipe: input.taskRecipe } : {}),
    ...(input.tasksFile ? { tasksFile: input.tasksFile } : {}),
  };
}

function toolforgeVersion(): string {
  const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/** The checkout's commit and whether tracked files differ from it; null when not a git checkout or no git. */
function gitState(directory: string): Provenance['git'] {
  const git = (args: string[]): string => execFileSync('git', args, {
    cwd: directory, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000,
  }).trim();
  try {
    const commit = git(['rev-parse', 'HEAD']);
    const changes = git(['status', '--porcelain', '--untracked-files=no']);
    return { commit, isDirty: changes.length > 0 };
  } catch {
    // No git binary, not a checkout, or no commit yet: provenance says so rather than failing the run.
    return null;
  }
}
