/**
 * Python's text forms of JSON-loaded values, because NESTFUL's metrics compare strings built with
 * Python's `str()` (`"arg_0 = 130.0"`, `"arg_0 = ['a', 'b']"`), prompts embed `json.dumps` output, and
 * the win rate rounds to the number of decimals in `str(gold)`. Float-ness comes from the marks left by
 * the lenient parser (see lenient-json.ts).
 */
import type { JsonValue } from '../../core/json.ts';
import { floatKeysOf, isFloatLiteral } from './lenient-json.ts';

/** `repr(float)`: shortest round-trip digits, fixed notation for exponents in [-4, 16), else scientific. */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let body: string;
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.slice(1);
    const sign = exponent < 0 ? '-' : '+';
    body = `${digits[0]}${fraction ? `.${fraction}` : ''}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  } else if (exponent < 0) {
    body = `0.${'0'.repeat(-exponent - 1)}${digits}`;
  } else {
    const integerPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    body = `${integerPart}.${fraction || '0'}`;
  }
  return negative ? `-${body}` : body;
}

function pythonNumber(value: number, isFloat: boolean): string {
  if (isFloat || !Number.isInteger(value)) return pythonFloatRepr(value);
  return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
}

/** `repr(str)`: single quotes unless the text holds a single quote and no double quote. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (character === '\\') body += '\\\\';
    else if (character === quote) body += `\\${quote}`;
    else if (character === '\n') body += '\\n';
    else if (character === '\r') body += '\\r';
    else if (character === '\t') body += '\\t';
    else if (code < 0x20 || code === 0x7f) body += `\\x${code.toString(16).padStart(2, '0')}`;
    else body += character;
  }
  return `${quote}${body}${quote}`;
}

/** `repr(value)` of a JSON-loaded value; `isFloat` says whether a number was a float literal. */
export function pythonRepr(value: JsonValue, isFloat = false): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return pythonNumber(value, isFloat);
  if (typeof value === 'string') return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map((item, index) => pythonRepr(item, isFloatLiteral(value, index))).join(', ')}]`;
  const entries = Object.entries(value).map(([key, item]) => `${pythonStringRepr(key)}: ${pythonRepr(item, isFloatLiteral(value, key))}`);
  return `{${entries.join(', ')}}`;
}

/** `str(value)`: strings as they are, everything else as repr. */
export function pythonStr(value: JsonValue, isFloat = false): string {
  return typeof value === 'string' ? value : pythonRepr(value, isFloat);
}

const nonAscii = /[\u007f-\uffff]/;

function jsonString(text: string): string {
  const json = JSON.stringify(text);
  // json.dumps escapes every non-ASCII character (ensure_ascii=True); most strings have none, and a test is half a replace's cost.
  if (!nonAscii.test(json)) return json;
  return json.replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `json.dumps(value)` with Python's default separators (", " and ": ") and float forms. */
export function pythonJsonDumps(value: JsonValue, isFloat = false): string {
  // A tool list or call list with no number JSON would write differently (a float, a float-marked or unsafe integer):
  // JSON.stringify's text with Python's separators and escapes, a fifth of the walk's cost on a prompt's tool list.
  if (typeof value === 'object' && value !== null && writesLikeJson(value)) return withPythonSeparators(JSON.stringify(value));
  return walkJsonDumps(value, isFloat);
}

/** True when every number inside is a safe integer written as one (JSON.stringify and json.dumps agree on it). */
function writesLikeJson(container: JsonValue[] | { [key: string]: JsonValue }): boolean {
  const floatKeys = floatKeysOf(container);
  if (floatKeys !== undefined && floatKeys.size > 0) return false;
  for (const key in container) {
    const item = (container as Record<string, JsonValue>)[key];
    if (typeof item === 'number') {
      if (!Number.isSafeInteger(item) || Object.is(item, -0)) return false;
    } else if (typeof item === 'object' && item !== null && !writesLikeJson(item)) {
      return false;
    }
  }
  return true;
}

/** JSON text with ", " and ": " between items (outside strings) and every non-ASCII character escaped, as json.dumps writes. */
function withPythonSeparators(json: string): string {
  let text = '';
  let copied = 0;
  let inString = false;
  for (let index = 0; index < json.length; index += 1) {
    const code = json.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x2c || code === 0x3a) {
      text += `${json.slice(copied, index + 1)} `;
      copied = index + 1;
    }
  }
  text += json.slice(copied);
  if (!nonAscii.test(text)) return text;
  return text.replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** json.dumps by a walk over every value: what pythonJsonDumps's faster path must equal (exported for that test). */
export function walkJsonDumps(value: JsonValue, isFloat = false): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return pythonNumber(value, isFloat);
  }
  if (typeof value === 'string') return jsonString(value);
  // One walk that appends (no per-container arrays): prompts json.dumps every sample's tool list.
  const floatKeys = floatKeysOf(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) text += ', ';
      text += walkJsonDumps(value[index], floatKeys !== undefined && floatKeys.has(String(index)));
    }
    return `${text}]`;
  }
  text = '{';
  let first = true;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = value[key];
    if (item === undefined) continue;
    text += first ? '' : ', ';
    first = false;
    text += `${jsonString(key)}: ${walkJsonDumps(item, floatKeys !== undefined && floatKeys.has(key))}`;
  }
  return `${text}}`;
}

/** How many decimals `str(gold)` shows, as the official scorer counts them (`len(str(g).split('.')[1])`). */
export function pythonFloatDecimals(value: number): number | undefined {
  const text = pythonFloatRepr(value);
  const dot = text.indexOf('.');
  return dot < 0 ? undefined : text.length - dot - 1;
}

/**
 * Python's `round(x, n)`: the nearest multiple of 10^-n to the exact binary value, ties to even.
 * toFixed rounds the exact value too but sends ties away from zero; a tie is detected on the exact
 * decimal expansion (toFixed(100) is exact for every magnitude where ties can occur).
 */
export function pythonRound(value: number, decimals: number): number {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21 || decimals > 60) return value;
  const exact = Math.abs(value).toFixed(100);
  const rest = exact.slice(exact.indexOf('.') + 1 + decimals);
  if (!/^50*$/.test(rest)) return Number(value.toFixed(decimals));
  const kept = exact.slice(0, exact.indexOf('.') + 1 + decimals).replace('.', '');
  const lastDigit = Number(kept[kept.length - 1] ?? '0');
  const magnitude = Number(kept) + (lastDigit % 2 === 0 ? 0 : 1);
  return Math.sign(value) * (magnitude / 10 ** decimals);
}
