/**
 * Every transform, by id; a new one is one file and one line here. `--transform id:k=v,...` is parsed
 * by parseTransformRequest; applyTransforms derives tasks (deterministic from the generation seed);
 * resolveAppliedTransforms finds the transforms a task file's origin names.
 */
import { ConfigError } from '../core/errors.ts';
import { canonicalJson } from '../core/json.ts';
import { Rng, deriveSeed } from '../core/rng.ts';
import type { Task, TaskOrigin } from '../core/task.ts';
import type { JsonObject } from '../core/json.ts';
import { taskDigest } from '../core/task-digest.ts';
import { resolveKnobs } from '../suites/knob.ts';
import { identityTransform } from './identity.ts';
import { queryPerturbationTransform } from './query-perturbation.ts';
import { renameToolsTransform } from './rename-tools.ts';
import { schemaDriftTransform } from './schema-drift.ts';
import type { AppliedTransform, TaskTransform, TransformRequest, TransformResources } from './spec.ts';

const transforms: readonly TaskTransform[] = [identityTransform, renameToolsTransform, schemaDriftTransform, queryPerturbationTransform];

export function listTransforms(): readonly TaskTransform[] {
  return transforms;
}

export function getTransform(id: string): TaskTransform {
  const transform = transforms.find((candidate) => candidate.id === id);
  if (!transform) {
    throw new ConfigError('config.invalid', `no transform '${id}'`, { fix: `use one of: ${transforms.map((candidate) => candidate.id).join(', ')}` });
  }
  return transform;
}

/**
 * `rename-tools` or `rename-tools:style=suffix,other=1`. A bare value sets the transform's first enum knob, as
 * the paper names the variants: `drift:all` is `drift:op=all`, `perturb:case-mix` is `perturb:kind=case-mix`.
 * Knob errors name the transform and give the `--transform` spelling of the fix.
 */
export function parseTransformRequest(text: string): TransformRequest {
  const [id, knobText = ''] = splitOnce(text.trim(), ':');
  const transform = getTransform(id);
  const names = transform.knobs.map((knob) => knob.name);
  const primary = transform.knobs[0]?.type === 'enum' ? transform.knobs[0].name : undefined;
  const raw: Record<string, string> = {};
  for (const pair of knobText.split(',').filter((part) => part.trim() !== '')) {
    const [name, value] = splitOnce(pair, '=');
    if (value === undefined && primary !== undefined && !Object.hasOwn(raw, primary) && !names.includes(pair.trim())) {
      raw[primary] = pair.trim();
      continue;
    }
    if (value === undefined) {
      throw new ConfigError('config.invalid', `--transform ${text}: '${pair}' is not name=value`, {
        fix: names.length === 0 ? `--transform ${id} takes no knobs` : `write --transform ${id}:name=value,... with name one of: ${names.join(', ')}`,
      });
    }
    const knobName = name.trim();
    if (!names.includes(knobName)) {
      const example = primary === undefined ? '' : ` (e.g. --transform ${id}:${primary}=${String(transform.knobs[0].default)})`;
      throw new ConfigError('config.unknown-knob', `--transform ${text}: transform ${id} has no knob '${knobName}'`, {
        fix: names.length === 0 ? `--transform ${id} takes no knobs` : `use one of: ${names.join(', ')}${example}`,
      });
    }
    if (Object.hasOwn(raw, knobName)) {
      // `drift:nest,op=type` sets op twice: the last used to win without a word, as --set refuses.
      throw new ConfigError('config.invalid', `--transform ${text}: knob '${knobName}' is given twice`, {
        fix: `give ${knobName} once: --transform ${id}:${knobName}=<value>${knobName === primary ? ` (or --transform ${id}:<value>)` : ''}`,
      });
    }
    raw[knobName] = value;
  }
  try {
    return { transform, knobs: resolveKnobs(`transform ${id}`, transform.knobs, raw) };
  } catch (error) {
    if (!(error instanceof ConfigError) || error.code !== 'config.invalid-knob') throw error;
    // resolveKnobs speaks of suites and `--set`; say it the way the user wrote it.
    const message = error.message.split('\n')[0].replace(`suite 'transform ${id}'`, `transform ${id}`);
    throw new ConfigError('config.invalid-knob', `--transform ${text}: ${message}`, { fix: error.fix?.replace(/^--set /, `--transform ${id}:`), cause: error });
  }
}

/**
 * A chain that names a transform applying once to a task (drift) twice is refused before any task is made; each task
 * would otherwise be refused as it is derived.
 */
export function checkTransformChain(requests: readonly TransformRequest[]): void {
  requests.forEach(({ transform }, index) => {
    const first = requests.findIndex((other) => other.transform.id === transform.id);
    if (transform.once === true && first < index) {
      throw new ConfigError('config.invalid', `transform ${transform.id} is given twice in the chain (${ordinal(first + 1)} and ${ordinal(index + 1)}), but it applies once to a task`, {
        fix: `give ${transform.id} once, with its options together (--transform ${transform.id}:name=value,...)`,
      });
    }
  });
}

/**
 * parseTransformRequest for a command that has no phrasing model (an eval set, a sweep): a transform that would ask one
 * (perturb:paraphrase) is refused before anything runs, saying where it can run instead.
 */
export function parseSeededTransformRequest(text: string, command: string): TransformRequest {
  const request = parseTransformRequest(text);
  if (request.transform.needsPhrasingModel?.(request.knobs) === true) {
    throw new ConfigError('config.invalid', `${text} asks a phrasing model to rewrite every task, and ${command} has none`, {
      fix: `run it on its own with toolforge run <suite> --transform ${text} --phrasing-model <ref>, or use a transform that needs only the seed (e.g. perturb:kind=case-mix)`,
    });
  }
  return request;
}

function ordinal(position: number): string {
  const suffix = position % 100 >= 11 && position % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][position % 10] ?? 'th';
  return `${position}${suffix}`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index === -1 ? [text, undefined] : [text.slice(0, index), text.slice(index + separator.length)];
}

/**
 * Applies the requested transforms in order to each task. The derived task keeps its suite stamp,
 * gets the id `<id>~<transform>...` and an origin naming the source task and every transform with
 * what it changed. Same tasks, seed and knobs give identical bytes. A transform that must first ask a
 * model (perturb:paraphrase) needs `applyTransformsPrepared`.
 */
export function applyTransforms(tasks: readonly Task[], requests: readonly TransformRequest[], seed: number): Task[] {
  let states = tasks.map(startState);
  for (const request of requests) states = states.map((state) => applyOne(state, request, seed, undefined));
  return states.map(finish);
}

/** applyTransforms, with each transform's asynchronous `prepare` step (model calls) run before its `apply`. */
export async function applyTransformsPrepared(tasks: readonly Task[], requests: readonly TransformRequest[], seed: number, resources: TransformResources): Promise<Task[]> {
  let states = tasks.map(startState);
  for (const request of requests) {
    const prepared = states.length > 0 ? await request.transform.prepare?.(states.map((state) => state.task), request.knobs, resources) : undefined;
    states = states.map((state, index) => applyOne(state, request, seed, prepared?.[index]));
  }
  return states.map(finish);
}

/**
 * applyTransformsPrepared over a stream of tasks, a batch at a time, so a run deriving 100,000 tasks never holds
 * them all. Each task's derivation depends only on the task, the seed and the knobs, so batches give the same tasks.
 */
export async function* transformStream(tasks: Iterable<Task> | AsyncIterable<Task>, requests: readonly TransformRequest[], seed: number, resources: TransformResources, batchSize = 64): AsyncGenerator<Task> {
  let batch: Task[] = [];
  for await (const task of tasks) {
    if (requests.length === 0) {
      yield task;
      continue;
    }
    batch.push(task);
    if (batch.length === batchSize) {
      yield* await applyTransformsPrepared(batch, requests, seed, resources);
      batch = [];
    }
  }
  if (batch.length > 0) yield* await applyTransformsPrepared(batch, requests, seed, resources);
}

type DerivationState = { task: Task; origin: TaskOrigin };

function startState(source: Task): DerivationState {
  const origin = source.origin
    ? { ...source.origin, transforms: [...source.origin.transforms] }
    : { taskId: source.id, taskDigest: taskDigest(source), transforms: [] };
  return { task: source, origin };
}

function finish(state: DerivationState): Task {
  return state.origin.transforms.length === 0 && state.task.origin === undefined ? state.task : { ...state.task, origin: state.origin };
}

function applyOne({ task, origin }: DerivationState, { transform, knobs }: TransformRequest, seed: number, prepared: JsonObject | undefined): DerivationState {
  if (transform.once === true && origin.transforms.some((record) => record.id === transform.id)) {
    throw new ConfigError('config.invalid', `task '${task.id}' is already derived by transform ${transform.id}, which applies once to a task`, {
      fix: `apply --transform ${transform.id} once (give its options together: --transform ${transform.id}:name=value,...)`,
    });
  }
  const rng = new Rng(deriveSeed(seed, 'transform', transform.id, transform.version, canonicalJson(knobs), task.id));
  const supported = typeof transform.modes === 'function' ? transform.modes(task) : transform.modes;
  const modes = supported ? task.modes.filter((mode) => supported.includes(mode)) : task.modes;
  if (modes.length === 0) {
    throw new ConfigError('config.unsupported-mode', `transform ${transform.id} cannot apply to task '${task.id}': it supports modes ${supported?.join(', ')}, the task ${task.modes.join(', ')}`, {
      fix: `drop --transform ${transform.id} for suite ${task.suite.id}`,
    });
  }
  const output = transform.apply({ ...task, modes }, rng, knobs, prepared === undefined ? { seed } : { seed, prepared });
  return {
    task: { ...output.task, id: `${task.id}~${transform.id}` },
    origin: { ...origin, transforms: [...origin.transforms, { id: transform.id, version: transform.version, knobs, changes: output.changes }] },
  };
}

/** The transforms a task was derived with, resolved for its episodes (environment wrappers, model adapters). */
export function resolveAppliedTransforms(task: Task): AppliedTransform[] {
  return (task.origin?.transforms ?? []).map((record) => {
    const transform = getTransform(record.id);
    if (transform.version !== record.version) {
      throw new ConfigError('input.invalid', `task '${task.id}' was made by transform ${record.id} version ${record.version}, but this ToolForge has version ${transform.version}`, {
        fix: 'regenerate the tasks with the same --transform options',
      });
    }
    return { transform, record };
  });
}
