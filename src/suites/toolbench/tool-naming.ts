/**
 * StableToolBench's function names (reference §5.3, `rapidapi_multithread.py`): `standardize`
 * replaces every character outside [A-Za-z0-9_^] and CJK U+4E00-U+9FA5 by `_` (the reference's
 * character class also keeps `^`), collapses runs of `_`, lower-cases, strips `_` at both ends, and
 * prefixes `get_` when the result starts with a digit; `changeName` prefixes `is_` for a Python
 * keyword-like name. A function is `changeName(standardize(api)) + '_for_' + standardize(tool)`,
 * truncated to its last 64 characters.
 */
export const maximumFunctionNameLength = 64;
const reservedNames = new Set(['from', 'class', 'return', 'false', 'true', 'id', 'and']);

export function standardizeName(text: string): string {
  let name = text.replace(/[^\u4e00-\u9fa5^a-zA-Z0-9_]/g, '_').replace(/_+/g, '_').toLowerCase().replace(/^_+|_+$/g, '');
  if (/^[0-9]/.test(name)) name = `get_${name}`;
  return name;
}

export function changeName(name: string): string {
  return reservedNames.has(name) ? `is_${name}` : name;
}

export function functionName(apiName: string, toolName: string): string {
  const name = `${changeName(standardizeName(apiName))}_for_${standardizeName(toolName)}`;
  return name.length > maximumFunctionNameLength ? name.slice(-maximumFunctionNameLength) : name;
}

/** The server's category folder name (§5.4): spaces, commas and slashes become `_`, `__` collapses once. */
export function standardizeCategory(category: string): string {
  let name = category.replace(/[ ,/]/g, '_');
  while (name.includes(' ') || name.includes(',')) name = name.replace(/[ ,]/g, '_');
  return name.replaceAll('__', '_');
}
