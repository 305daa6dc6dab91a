/**
 * A field's path as a reader writes it, the same in every error that names one: `tools[0].name`,
 * `models[1].ref`, `["openai/gpt-4.1"].input`. (Zod's own paths are arrays; joined with dots, `modes.0` reads as
 * a field named 0 and a key holding a dot cannot be told from nesting.)
 */
export function formatFieldPath(path: readonly PropertyKey[], root = ''): string {
  let text = root;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$-]*$/.test(segment)) text += text ? `.${segment}` : segment;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}
