/**
 * A forgiving JSON reader for model output and NESTFUL data files. It accepts what JSON5 and Python
 * literals would (single-quoted strings, trailing commas, unquoted keys, True/False/None) and remembers
 * which numbers were written as float literals (`130.0`), because the official scorer runs on Python
 * values: `str(130.0)` is "130.0" while `str(130)` is "130", and the gold answer's decimal count decides
 * how a predicted float is rounded. JavaScript numbers cannot carry that, so the parser records, per
 * container (object or array), the keys whose value was a float literal.
 */
import type { JsonValue } from '../../core/json.ts';

export type LenientParseResult = { ok: true; value: JsonValue; isFloat: boolean } | { ok: false; error: string };

const floatKeysByContainer = new WeakMap<object, Set<string>>();

/** True when `container[key]` was written as a float literal (or marked so with markFloat). */
export function isFloatLiteral(container: object, key: string | number): boolean {
  return floatKeysByContainer.get(container)?.has(String(key)) ?? false;
}

/** The keys of `container` whose values were float literals (one lookup for a whole container's walk). */
export function floatKeysOf(container: object): ReadonlySet<string> | undefined {
  return floatKeysByContainer.get(container);
}

export function markFloat(container: object, key: string | number): void {
  let keys = floatKeysByContainer.get(container);
  if (!keys) floatKeysByContainer.set(container, (keys = new Set()));
  keys.add(String(key));
}

/** Copies the float marks of `from`'s keys to `to` (same keys), for containers rebuilt by grounding. */
export function copyFloatMarks(from: object, to: object): void {
  const keys = floatKeysByContainer.get(from);
  if (keys) floatKeysByContainer.set(to, new Set(keys));
}

class ParseFailure extends Error {}

export function parseLenientJson(text: string): LenientParseResult {
  return parseStrictJson(text) ?? parseWithLenientParser(text);
}

/** The lenient parser alone: what parseLenientJson's native path must equal (exported for that test). */
export function parseWithLenientParser(text: string): LenientParseResult {
  const parser = new Parser(text);
  try {
    const { value, isFloat } = parser.parseTopLevel();
    return { ok: true, value, isFloat };
  } catch (error) {
    if (error instanceof ParseFailure) return { ok: false, error: error.message };
    throw error;
  }
}

/**
 * Text that may need a float mark: a number with an integral value written as a float (`130.0`, `5e2`; JSON has no
 * `130.`). Non-integral numbers are floats in Python anyway, and every reader of the marks treats them so. It matches
 * inside strings too, which only sends such text down the lenient parser.
 */
const markedFloatLiteral = /\d\.0+(?!\d)|\d[eE]|\d{300}/;

/**
 * Strict JSON read natively, when that gives what the lenient parser would (most data lines and model outputs): no
 * number that needs a float mark, and too few brackets to nest past the parser's limit. Else undefined.
 */
function parseStrictJson(text: string): LenientParseResult | undefined {
  if (markedFloatLiteral.test(text) || bracketsExceed(text, maximumDepth)) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  return { ok: true, value, isFloat: typeof value === 'number' && text.includes('.') };
}

function bracketsExceed(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['[', '{']) {
    for (let index = text.indexOf(bracket); index >= 0; index = text.indexOf(bracket, index + 1)) {
      count += 1;
      if (count > limit) return true;
    }
  }
  return false;
}

/**
 * How a run of values ended: `closed` at the list's `]`, `end-of-text` after a complete value or a
 * separator (output cut at a call boundary by a token limit), `stopped` at text that starts no value.
 */
export type SequenceEnding = 'closed' | 'end-of-text' | 'stopped';

/**
 * Parses the values of a list from the `[` at `start`, or, when `start` is at a `{`, a run of objects
 * written without the outer brackets and separated by commas or line breaks. Only complete values are
 * returned; a value cut in the middle (or any syntax error inside one) gives undefined.
 */
export function parseLenientSequence(text: string, start: number): { values: JsonValue[]; ending: SequenceEnding; end: number } | undefined {
  const parser = new Parser(text, start);
  try {
    const { values, ending } = parser.parseSequence();
    return { values, ending, end: parser.position };
  } catch (error) {
    if (error instanceof ParseFailure) return undefined;
    throw error;
  }
}

const identifierStart = /[A-Za-z_$]/;
/** Deeper nesting is rejected (as unparsable) rather than overflowing the stack. */
const maximumDepth = 256;
const identifierPart = /[A-Za-z0-9_$]/;

class Parser {
  position: number;
  private readonly text: string;
  private depth = 0;

  constructor(text: string, start = 0) {
    this.text = text;
    this.position = start;
  }

  parseTopLevel(): { value: JsonValue; isFloat: boolean } {
    const result = this.parseValueWithFloat();
    this.skipWhitespace();
    if (this.position < this.text.length) this.fail('unexpected text after the value');
    return result;
  }

  parseValueWithFloat(): { value: JsonValue; isFloat: boolean } {
    this.skipWhitespace();
    const character = this.text[this.position];
    if (character === '{' || character === '[') {
      if (this.depth >= maximumDepth) this.fail(`nesting deeper than ${maximumDepth}`);
      this.depth += 1;
      const value = character === '{' ? this.parseObject() : this.parseArray();
      this.depth -= 1;
      return { value, isFloat: false };
    }
    if (character === '"' || character === "'") return { value: this.parseString(character), isFloat: false };
    if (character === '-' || character === '+' || character === '.' || (character >= '0' && character <= '9')) return this.parseNumber();
    if (character !== undefined && identifierStart.test(character)) {
      const word = this.parseIdentifier();
      switch (word) {
        case 'true': case 'True': return { value: true, isFloat: false };
        case 'false': case 'False': return { value: false, isFloat: false };
        case 'null': case 'None': return { value: null, isFloat: false };
        default: this.fail(`unexpected word '${word}'`);
      }
    }
    return this.fail(character === undefined ? 'unexpected end of text' : `unexpected character '${character}'`);
  }

  parseSequence(): { values: JsonValue[]; ending: SequenceEnding } {
    const bracketed = this.text[this.position] === '[';
    if (bracketed) this.position += 1;
    const values: JsonValue[] = [];
    for (;;) {
      this.skipWhitespace();
      const character = this.text[this.position];
      if (character === undefined) return { values, ending: 'end-of-text' };
      if (bracketed && character === ']') { this.position += 1; return { values, ending: 'closed' }; }
      if (!bracketed && character !== '{') return { values, ending: 'stopped' };
      const { value, isFloat } = this.parseValueWithFloat();
      if (isFloat) markFloat(values, values.length);
      values.push(value);
      this.skipWhitespace();
      const separator = this.text[this.position];
      if (separator === ',') { this.position += 1; continue; }
      if (separator === undefined || (bracketed && separator === ']') || !bracketed) continue;
      this.fail("expected ',' or ']' in a list");
    }
  }

  private parseObject(): JsonValue {
    const object: { [key: string]: JsonValue } = {};
    this.position += 1;
    for (;;) {
      this.skipWhitespace();
      const character = this.text[this.position];
      if (character === '}') { this.position += 1; return object; }
      let key: string;
      if (character === '"' || character === "'") key = this.parseString(character);
      else if (character !== undefined && identifierStart.test(character)) key = this.parseIdentifier();
      else if (character !== undefined && character >= '0' && character <= '9') key = String(this.parseNumber().value);
      else this.fail('expected an object key');
      this.skipWhitespace();
      if (this.text[this.position] !== ':') this.fail(`expected ':' after key '${key}'`);
      this.position += 1;
      const { value, isFloat } = this.parseValueWithFloat();
      // An own property, as JSON.parse makes it: assigning `__proto__` would set the object's prototype instead.
      if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      else object[key] = value;
      if (isFloat) markFloat(object, key);
      this.skipWhitespace();
      const separator = this.text[this.position];
      if (separator === ',') { this.position += 1; continue; }
      if (separator === '}') { this.position += 1; return object; }
      this.fail("expected ',' or '}' in an object");
    }
  }

  private parseArray(): JsonValue {
    const array: JsonValue[] = [];
    this.position += 1;
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.position] === ']') { this.position += 1; return array; }
      const { value, isFloat } = this.parseValueWithFloat();
      if (isFloat) markFloat(array, array.length);
      array.push(value);
      this.skipWhitespace();
      const separator = this.text[this.position];
      if (separator === ',') { this.position += 1; continue; }
      if (separator === ']') { this.position += 1; return array; }
      this.fail("expected ',' or ']' in a list");
    }
  }

  private parseString(quote: string): string {
    let result = '';
    let index = this.position + 1;
    const text = this.text;
    for (;;) {
      const end = index;
      while (index < text.length && text[index] !== quote && text[index] !== '\\') index += 1;
      result += text.slice(end, index);
      if (index >= text.length) this.fail('unterminated string');
      if (text[index] === quote) { this.position = index + 1; return result; }
      const escaped = text[index + 1];
      index += 2;
      switch (escaped) {
        case 'n': result += '\n'; break;
        case 't': result += '\t'; break;
        case 'r': result += '\r'; break;
        case 'b': result += '\b'; break;
        case 'f': result += '\f'; break;
        case 'u': {
          const hex = text.slice(index, index + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          result += String.fromCharCode(Number.parseInt(hex, 16));
          index += 4;
          break;
        }
        case undefined: this.fail('unterminated string'); break;
        // `\"`, `\'`, `\\`, `\/` and anything else stand for the character itself.
        default: result += escaped;
      }
    }
  }

  private parseNumber(): { value: JsonValue; isFloat: boolean } {
    const match = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(this.text.slice(this.position, this.position + 400));
    if (!match) this.fail('bad number');
    const lexeme = match[0];
    this.position += lexeme.length;
    const value = Number(lexeme);
    if (!Number.isFinite(value)) this.fail(`number out of range: ${lexeme}`);
    return { value, isFloat: /[.eE]/.test(lexeme) };
  }

  private parseIdentifier(): string {
    const start = this.position;
    while (this.position < this.text.length && identifierPart.test(this.text[this.position])) this.position += 1;
    return this.text.slice(start, this.position);
  }

  private skipWhitespace(): void {
    const text = this.text;
    while (this.position < text.length) {
      const code = text.charCodeAt(this.position);
      if (code === 32 || code === 10 || code === 13 || code === 9) this.position += 1;
      else break;
    }
  }

  private fail(message: string): never {
    throw new ParseFailure(`${message} at offset ${this.position}`);
  }
}
