/**
 * zod checks remembered by the checked object and the schema. A task's ground truth is checked when the task enters
 * a run and again by its suite in each of its episodes; a pass of the same object against the same schema is
 * remembered, so the later checks cost a lookup. Only for values never mutated once made (tasks), and for callers
 * that need the verdict, not a parsed copy.
 */
import type { ZodError, ZodType } from 'zod';

const passed = new WeakMap<object, WeakSet<ZodType>>();
/** Schemas with a quick test that says yes only where the schema would (see `acceptQuicklyWhen`). */
const quickTests = new WeakMap<ZodType, (value: unknown) => boolean>();

/**
 * Values that pass `test` pass `schema` without zod walking them (nor being remembered: the test costs less than the
 * bookkeeping). `test` must say yes only where `schema` would; a no goes to zod, which names the field at fault.
 */
export function acceptQuicklyWhen(schema: ZodType, test: (value: unknown) => boolean): void {
  quickTests.set(schema, test);
}

/** undefined when `value` passes `schema` (now or before), else the check's error. */
export function checkOnce(schema: ZodType, value: unknown): ZodError | undefined {
  const remembered = typeof value === 'object' && value !== null;
  if (remembered && passed.get(value)?.has(schema)) return undefined;
  if (quickTests.get(schema)?.(value) === true) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) return parsed.error;
  if (remembered) {
    let schemas = passed.get(value);
    if (!schemas) {
      schemas = new WeakSet();
      passed.set(value, schemas);
    }
    schemas.add(schema);
  }
  return undefined;
}

/** Records that `value` passes `schema` without checking it: for the output of `schema.parse`, which passes by construction. */
export function rememberPassed(schema: ZodType, value: object): void {
  let schemas = passed.get(value);
  if (!schemas) {
    schemas = new WeakSet();
    passed.set(value, schemas);
  }
  schemas.add(schema);
}
