/**
 * `compute` once per object, remembered while the object lives: for values derived from objects that are never
 * mutated once made (tasks, their prompts), read by several parts of an episode or by every trial of a task.
 */
export function memoizeByObject<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const remembered = new WeakMap<K, V>();
  return (key) => {
    if (remembered.has(key)) return remembered.get(key) as V;
    const value = compute(key);
    remembered.set(key, value);
    return value;
  };
}
