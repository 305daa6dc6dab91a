/**
 * A quick, allocation-free test that a value has the Task shape (task.ts's taskSchema), for the tasks that are
 * checked by the thousand: generated ones and ones read from a file. zod's check builds a copy of every record it
 * walks (a funcgen task's 20 tool schemas among them), and that garbage cost more than making the task: `toolforge
 * generate funcgen` of 20,000 tasks took 5.2 s with it and 3.5 s without (one thread).
 *
 * It only ever says yes when taskSchema would: anything it is unsure of (a derived task's `origin`, an object that is
 * not plain, a symbol key) is a no, and a no sends the value to zod, which accepts it or names the field at fault.
 * test/core/well-formed-task.test.ts holds it to that on corrupted tasks of every suite.
 */
import { longestTimerMs } from './limits.ts';

const modes = new Set(['calls', 'react', 'sequence', 'code']);

export function isWellFormedTask(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  const task = value as Record<string, unknown>;
  // `expected` is any JSON, but there (zod refuses a task without it).
  if (task.schemaVersion !== 1 || !isFilledString(task.id) || task.origin !== undefined || task.expected === undefined) return false;
  const suite = task.suite;
  if (!isPlainRecord(suite) || !isFilledString(suite.id) || !isFilledString(suite.version)) return false;
  if (!Number.isSafeInteger(task.seed) || !isPlainRecord(task.params) || !isPlainRecord(task.stats)) return false;
  if (!isOptionalString(task.query) || !isOptionalString(task.docs) || !isOptionalString(task.starter)) return false;
  return hasPrompt(task.prompt) && hasTools(task.tools) && hasModes(task.modes) && hasLimits(task.limits);
}

/** An object with Object.prototype (or none) and no symbol keys: what zod's object and record checks take as is. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Object.getOwnPropertySymbols(value).length === 0;
}

function isFilledString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function hasPrompt(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const message of value) {
    if (!isPlainRecord(message) || (message.role !== 'user' && message.role !== 'system') || typeof message.content !== 'string') return false;
  }
  return true;
}

function hasTools(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const tool of value) {
    if (!isPlainRecord(tool) || !isFilledString(tool.name) || typeof tool.description !== 'string' || !isPlainRecord(tool.inputSchema)) return false;
  }
  return true;
}

function hasModes(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0 || value.length > modes.size) return false;
  for (let index = 0; index < value.length; index += 1) {
    const mode: unknown = value[index];
    if (typeof mode !== 'string' || !modes.has(mode)) return false;
    // Listed twice is refused (taskSchema's refinement); at most four, so no set is built.
    for (let earlier = 0; earlier < index; earlier += 1) if (value[earlier] === mode) return false;
  }
  return true;
}

function hasLimits(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  return isPositiveInteger(value.maxTurns) && isPositiveInteger(value.maxToolCalls)
    && isPositiveInteger(value.timeLimitMs) && (value.timeLimitMs as number) <= longestTimerMs;
}

function isPositiveInteger(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) > 0;
}
