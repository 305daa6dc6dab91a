import type { JsonObject } from '../core/json.ts';
import type { Mode } from '../core/mode.ts';
import type { GenerationSettings } from '../models/spec.ts';

/** `running` also covers a run whose process was killed: `resumeEvaluation` finishes it. */
export type RunStatus = 'running' | 'finished' | 'cancelled' | 'failed';

/** Where a run's numbers came from, so a result can be traced and reproduced. */
export type Provenance = {
  toolforgeVersion: string;
  /** Null outside a git checkout (e.g. an npm install). */
  git: { commit: string; isDirty: boolean } | null;
  nodeVersion: string;
  platform: string;
  suite: { id: string; version: string };
  model: { ref: string; baseUrl: string | null; settings: GenerationSettings };
  seed: number;
  params: JsonObject;
  /** Null when each task ran in its own default mode. */
  mode: Mode | null;
  trials: number;
  cliArgs: string[];
  /** Replay runs started with --allow-missing: planned episodes with no stored output (scored as failures). */
  missingOutputs?: string[];
  /** Each `run --resume`: when, with which endpoint and command line (the run's base URL is the latest one). */
  resumes?: { at: string; baseUrl: string | null; cliArgs: string[] }[];
  /** The transforms the tasks were derived with (`--transform`), in order; absent when none. */
  transforms?: { id: string; version: string; knobs: JsonObject }[];
  /** Whether raw vendor bodies are kept with each episode (`--keep-raw`). */
  keepRaw?: boolean;
  /** For a re-scored run: the run whose episodes it re-scored (no model was called). */
  rescoredFrom?: string;
  /**
   * A replay model's file as an absolute path, when the run started: `--resume` and workers started in another folder
   * read the same file (the model reference keeps the path as the user typed it).
   */
  modelFile?: string;
  /**
   * How a registered suite makes the run's tasks again (its generator or importer, unchanged): a run stopped before
   * they were all stored is continued by `run --resume` from here. Absent for tasks from a file or transforms.
   */
  taskRecipe?: StoredTaskRecipe;
  /**
   * The tasks file the run read its tasks from (`run --tasks`, no transform), and how it read it: a run stopped before
   * they were all stored is continued by `run --resume` from the same file, unchanged.
   */
  tasksFile?: StoredTasksFile;
};

export type StoredTasksFile = {
  /** Absolute, so a resume in another folder reads the same file. */
  path: string;
  /** Each task was solved by builtin/oracle as it was read (`--no-validate` absent). */
  validate: boolean;
  selection?: { taskIds?: string[]; limit?: number };
  allowMissingOutputs?: boolean;
};

export type StoredTaskRecipe = {
  seed: number;
  count?: number;
  params: JsonObject;
  selection?: { taskIds?: string[]; limit?: number };
  /** The transforms each task was derived with, as `--transform` takes them (`perturb:kind=case-mix`), in order. */
  transforms?: string[];
  /** The run was started with --allow-missing (a replay file's missing outputs are scored as failures). */
  allowMissingOutputs?: boolean;
};

/** One evaluation run: one model on a fixed list of tasks, each tried `trials` times. */
export type StoredRun = {
  schemaVersion: 1;
  id: string;
  createdAt: string;
  suite: { id: string; version: string };
  model: string;
  baseUrl: string | null;
  mode: Mode | null;
  trials: number;
  concurrency: number;
  seed: number;
  params: JsonObject;
  settings: GenerationSettings;
  provenance: Provenance;
  status: RunStatus;
  taskCount: number;
};
