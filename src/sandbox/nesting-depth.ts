/**
 * Nesting depth of program data, measured without recursion. Every host-side read of what a program produced
 * (host-call payloads, recorded requests, the result, an error description) is checked against
 * `maximumNestingDepth` first: deeper data would overflow the host stack in JSON.stringify or in the structured
 * clone that carries it to the main thread (measured: 3000 levels are silently dropped by postMessage).
 */

/** How deep the JSON text nests (`1` for `[]` or `{}`, `0` for a scalar); strings are skipped. */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return deepest;
}

/** Whether a value (objects and arrays; cycles are not followed twice) nests deeper than `maximumDepth`. */
export function nestsDeeperThan(value: unknown, maximumDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    if (depth + 1 > maximumDepth) return true;
    seen.add(current);
    for (const item of Object.values(current)) pending.push([item, depth + 1]);
  }
  return false;
}
