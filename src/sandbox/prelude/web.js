// Fragment of the sandbox installer (see runtime.js): small web globals QuickJS lacks. Only what request-building
// code uses: URL, URLSearchParams, Headers, Blob, File, FormData, AbortController, btoa/atob.

function formEncode(text) {
  return encodeURIComponent(text).replace(/%20/g, '+').replace(/[!'()~]/g, (character) => '%' + character.charCodeAt(0).toString(16).toUpperCase());
}

function formDecode(text) {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch (error) {
    return text;
  }
}

class URLSearchParams {
  constructor(init) {
    this._list = [];
    this._onChange = null;
    if (init === undefined || init === null) return;
    if (init instanceof URLSearchParams) {
      this._list = init._list.map(([key, value]) => [key, value]);
    } else if (typeof init === 'object' && typeof init[Symbol.iterator] === 'function') {
      for (const pair of init) {
        const items = [...pair];
        if (items.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
        this._list.push([String(items[0]), String(items[1])]);
      }
    } else if (typeof init === 'object') {
      for (const key of objectKeys(init)) this._list.push([key, String(init[key])]);
    } else {
      this._parse(String(init));
    }
  }

  _parse(text) {
    this._list = [];
    const query = text.startsWith('?') ? text.slice(1) : text;
    for (const part of query.split('&')) {
      if (part === '') continue;
      const index = part.indexOf('=');
      this._list.push(index >= 0 ? [formDecode(part.slice(0, index)), formDecode(part.slice(index + 1))] : [formDecode(part), '']);
    }
  }

  _changed() {
    if (this._onChange) this._onChange(this.toString());
  }

  get size() { return this._list.length; }
  append(name, value) { this._list.push([String(name), String(value)]); this._changed(); }
  delete(name) { this._list = this._list.filter(([key]) => key !== String(name)); this._changed(); }
  get(name) { const found = this._list.find(([key]) => key === String(name)); return found ? found[1] : null; }
  getAll(name) { return this._list.filter(([key]) => key === String(name)).map(([, value]) => value); }
  has(name) { return this._list.some(([key]) => key === String(name)); }
  set(name, value) {
    const key = String(name);
    const index = this._list.findIndex(([existing]) => existing === key);
    if (index === -1) this._list.push([key, String(value)]);
    else this._list = this._list.filter(([existing], position) => existing !== key || position === index).map((pair, position) => (position === index ? [key, String(value)] : pair));
    this._changed();
  }
  sort() { this._list.sort((left, right) => (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0)); this._changed(); }
  forEach(callback, thisArgument) { for (const [key, value] of this._list) callback.call(thisArgument, value, key, this); }
  keys() { return this._list.map(([key]) => key)[Symbol.iterator](); }
  values() { return this._list.map(([, value]) => value)[Symbol.iterator](); }
  entries() { return this._list.map(([key, value]) => [key, value])[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  toString() { return this._list.map(([key, value]) => formEncode(key) + '=' + formEncode(value)).join('&'); }
}

const urlPattern = /^([a-zA-Z][a-zA-Z0-9+.-]*:)(?:\/\/(?:([^@/?#]*)@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?)?([^?#]*)(\?[^#]*)?(#.*)?$/;
const defaultPorts = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21' };

function encodeUrlPart(text) {
  return text.replace(/[^\x21-\x7e]|["<>`{}]/gu, (character) => encodeURIComponent(character));
}

function removeDotSegments(path) {
  const output = [];
  const segments = path.split('/');
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index];
    const last = index === segments.length - 1;
    if (segment === '..') {
      if (output.length > 1) output.pop();
      if (last) output.push('');
    } else if (segment === '.') {
      if (last) output.push('');
    } else {
      output.push(segment);
    }
  }
  return output.join('/');
}

class URL {
  constructor(input, base) {
    const text = String(input).trim();
    let match = urlPattern.exec(text);
    if (!match || (match[3] === undefined && defaultPorts[match[1].toLowerCase()] !== undefined)) {
      if (base === undefined) throw new TypeError('Invalid URL: ' + text);
      const baseUrl = base instanceof URL ? base : new URL(base);
      let resolved;
      if (text.startsWith('//')) resolved = baseUrl.protocol + text;
      else if (text.startsWith('/')) resolved = baseUrl.origin + text;
      else if (text.startsWith('?')) resolved = baseUrl.origin + baseUrl.pathname + text;
      else if (text.startsWith('#')) resolved = baseUrl.origin + baseUrl.pathname + baseUrl.search + text;
      else resolved = baseUrl.origin + baseUrl.pathname.slice(0, baseUrl.pathname.lastIndexOf('/') + 1) + text;
      match = urlPattern.exec(resolved);
      if (!match) throw new TypeError('Invalid URL: ' + text);
    }
    this.protocol = match[1].toLowerCase();
    const userInfo = match[2] || '';
    const colon = userInfo.indexOf(':');
    this.username = colon >= 0 ? userInfo.slice(0, colon) : userInfo;
    this.password = colon >= 0 ? userInfo.slice(colon + 1) : '';
    this._hasAuthority = match[3] !== undefined;
    this.hostname = (match[3] || '').toLowerCase();
    const port = match[4] || '';
    this.port = defaultPorts[this.protocol] === port ? '' : port;
    let pathname = encodeUrlPart(match[5] || '');
    if (this._hasAuthority && pathname === '') pathname = '/';
    this.pathname = this._hasAuthority ? removeDotSegments(pathname) : pathname;
    this.hash = match[7] && match[7] !== '#' ? encodeUrlPart(match[7]) : '';
    this._query = match[6] ? encodeUrlPart(match[6].slice(1)) : '';
    this._searchParams = new URLSearchParams(this._query);
    this._searchParams._onChange = (query) => { this._query = query; };
  }

  get search() { return this._query ? '?' + this._query : ''; }
  set search(value) {
    const text = String(value);
    this._query = encodeUrlPart(text.startsWith('?') ? text.slice(1) : text);
    this._searchParams._parse(this._query);
  }
  get searchParams() { return this._searchParams; }
  get host() { return this.hostname + (this.port ? ':' + this.port : ''); }
  set host(value) {
    const [hostname, port] = String(value).split(':');
    this.hostname = hostname.toLowerCase();
    this.port = port || '';
  }
  get origin() { return this._hasAuthority ? this.protocol + '//' + this.host : 'null'; }
  get href() {
    const credentials = this.username ? this.username + (this.password ? ':' + this.password : '') + '@' : '';
    return this.protocol + (this._hasAuthority ? '//' + credentials + this.host : '') + this.pathname + this.search + this.hash;
  }
  set href(value) {
    const parsed = new URL(value);
    for (const key of ['protocol', 'username', 'password', 'hostname', 'port', 'pathname', 'hash', '_hasAuthority']) this[key] = parsed[key];
    this.search = parsed.search;
  }
  toString() { return this.href; }
  toJSON() { return this.href; }
  static canParse(input, base) {
    try { new URL(input, base); return true; } catch (error) { return false; }
  }
}

class Headers {
  constructor(init) {
    this._map = new Map();
    if (init === undefined || init === null) return;
    if (init instanceof Headers) init.forEach((value, name) => this.append(name, value));
    else if (typeof init[Symbol.iterator] === 'function') for (const [name, value] of init) this.append(name, value);
    else for (const name of objectKeys(init)) this.append(name, init[name]);
  }
  append(name, value) {
    const key = String(name).toLowerCase();
    const existing = this._map.get(key);
    if (existing) existing.value += ', ' + String(value);
    else this._map.set(key, { name: String(name), value: String(value) });
  }
  set(name, value) {
    const key = String(name).toLowerCase();
    const existing = this._map.get(key);
    this._map.set(key, { name: existing ? existing.name : String(name), value: String(value) });
  }
  get(name) { const entry = this._map.get(String(name).toLowerCase()); return entry ? entry.value : null; }
  has(name) { return this._map.has(String(name).toLowerCase()); }
  delete(name) { this._map.delete(String(name).toLowerCase()); }
  forEach(callback, thisArgument) { for (const [key, entry] of this._map) callback.call(thisArgument, entry.value, key, this); }
  keys() { return [...this._map.keys()][Symbol.iterator](); }
  values() { return [...this._map.values()].map((entry) => entry.value)[Symbol.iterator](); }
  entries() { return [...this._map].map(([key, entry]) => [key, entry.value])[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  /** Names as the program first wrote them, for the recorded request. */
  _asWritten() {
    const result = {};
    for (const entry of this._map.values()) result[entry.name] = entry.value;
    return result;
  }
}

class Blob {
  constructor(parts = [], options = {}) {
    this._text = [...parts].map((part) => (part instanceof Blob ? part._text : String(part))).join('');
    this.type = options && options.type ? String(options.type).toLowerCase() : '';
  }
  get size() { return this._text.length; }
  text() { return Promise.resolve(this._text); }
  slice(start, end, type) { const blob = new Blob([this._text.slice(start, end)], { type }); return blob; }
}

class File extends Blob {
  constructor(parts, name, options = {}) {
    super(parts, options);
    this.name = String(name);
    this.lastModified = options && options.lastModified !== undefined ? Number(options.lastModified) : virtualNow;
  }
}

class FormData {
  constructor() { this._entries = []; }
  _value(value, filename) {
    if (value instanceof Blob) return filename === undefined && value instanceof File ? value : new File([value], filename === undefined ? 'blob' : filename, { type: value.type });
    return String(value);
  }
  append(name, value, filename) { this._entries.push([String(name), this._value(value, filename)]); }
  set(name, value, filename) {
    const key = String(name);
    const index = this._entries.findIndex(([existing]) => existing === key);
    const entry = [key, this._value(value, filename)];
    if (index === -1) this._entries.push(entry);
    else this._entries = this._entries.filter(([existing], position) => existing !== key || position === index).map((pair, position) => (position === index ? entry : pair));
  }
  get(name) { const found = this._entries.find(([key]) => key === String(name)); return found ? found[1] : null; }
  getAll(name) { return this._entries.filter(([key]) => key === String(name)).map(([, value]) => value); }
  has(name) { return this._entries.some(([key]) => key === String(name)); }
  delete(name) { this._entries = this._entries.filter(([key]) => key !== String(name)); }
  forEach(callback, thisArgument) { for (const [key, value] of this._entries) callback.call(thisArgument, value, key, this); }
  keys() { return this._entries.map(([key]) => key)[Symbol.iterator](); }
  values() { return this._entries.map(([, value]) => value)[Symbol.iterator](); }
  entries() { return this._entries.map(([key, value]) => [key, value])[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  /** form-data's getHeaders(), which Node programs pass to axios. */
  getHeaders(extra) { return { ...(extra || {}), 'content-type': 'multipart/form-data' }; }
  /** Entries as strings, as the reference's mock reads them. */
  _wireEntries() { return this._entries.map(([key, value]) => [key, value instanceof Blob ? value._text : value]); }
}

class AbortSignal {
  constructor() { this.aborted = false; this.reason = undefined; this.onabort = null; this._listeners = []; }
  addEventListener(type, listener) { if (type === 'abort') this._listeners.push(listener); }
  removeEventListener(type, listener) { this._listeners = this._listeners.filter((existing) => existing !== listener); }
  throwIfAborted() { if (this.aborted) throw this.reason; }
  _abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? makeError({ name: 'AbortError', message: 'This operation was aborted' }) : reason;
    const event = { type: 'abort', target: this };
    if (typeof this.onabort === 'function') this.onabort(event);
    for (const listener of this._listeners) listener(event);
  }
  static abort(reason) { const signal = new AbortSignal(); signal._abort(reason); return signal; }
  static timeout(milliseconds) {
    const signal = new AbortSignal();
    scheduleTimer(() => signal._abort(makeError({ name: 'TimeoutError', message: 'The operation was aborted due to timeout' })), milliseconds, [], false);
    return signal;
  }
}

class AbortController {
  constructor() { this.signal = new AbortSignal(); }
  abort(reason) { this.signal._abort(reason); }
}

const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function btoa(input) {
  const text = String(input);
  let output = '';
  for (let index = 0; index < text.length; index += 3) {
    const codes = [text.charCodeAt(index), text.charCodeAt(index + 1), text.charCodeAt(index + 2)];
    if (codes.some((code) => code > 255)) throw makeError({ name: 'InvalidCharacterError', message: 'Invalid character' });
    const [first, second, third] = codes;
    output += base64Alphabet[first >> 2];
    output += base64Alphabet[((first & 3) << 4) | (Number.isNaN(second) ? 0 : second >> 4)];
    output += Number.isNaN(second) ? '=' : base64Alphabet[((second & 15) << 2) | (Number.isNaN(third) ? 0 : third >> 6)];
    output += Number.isNaN(third) ? '=' : base64Alphabet[third & 63];
  }
  return output;
}

function atob(input) {
  const text = String(input).replace(/[\t\n\f\r ]/g, '').replace(/=+$/, '');
  let output = '';
  let buffer = 0;
  let bits = 0;
  for (const character of text) {
    const value = base64Alphabet.indexOf(character);
    if (value === -1) throw makeError({ name: 'InvalidCharacterError', message: 'The string to be decoded is not correctly encoded.' });
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      output += String.fromCharCode((buffer >> bits) & 255);
    }
  }
  return output;
}

// ---- bytes: TextEncoder/TextDecoder (UTF-8) and the part of Node's Buffer that request code uses ----

/** UTF-8 bytes of a string, as a string of char codes 0-255. */
function utf8Latin1(text) {
  return unescape(encodeURIComponent(String(text)));
}

function latin1Utf8(binary) {
  try {
    return decodeURIComponent(escape(binary));
  } catch (error) {
    return binary;
  }
}

function bytesToLatin1(bytes) {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 1) binary += String.fromCharCode(bytes[index]);
  return binary;
}

function latin1ToBytes(binary, Target) {
  const bytes = new Target(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index) & 255;
  return bytes;
}

class TextEncoder {
  get encoding() { return 'utf-8'; }
  encode(text = '') { return latin1ToBytes(utf8Latin1(text), Uint8Array); }
}

class TextDecoder {
  get encoding() { return 'utf-8'; }
  decode(bytes) {
    if (bytes === undefined) return '';
    const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
    return latin1Utf8(bytesToLatin1(view));
  }
}

function encodeBinary(text, encoding) {
  switch (String(encoding || 'utf8').toLowerCase()) {
    case 'base64': case 'base64url': return atob(String(text).replace(/-/g, '+').replace(/_/g, '/'));
    case 'hex': return String(text).replace(/[^0-9a-f]/gi, '').replace(/../g, (pair) => String.fromCharCode(parseInt(pair, 16)));
    case 'latin1': case 'binary': case 'ascii': return String(text);
    default: return utf8Latin1(text);
  }
}

class Buffer extends Uint8Array {
  static from(value, encodingOrOffset) {
    if (typeof value === 'string') return latin1ToBytes(encodeBinary(value, encodingOrOffset), Buffer);
    if (value instanceof ArrayBuffer) return new Buffer(value);
    if (value !== null && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data)) return Buffer.from(value.data);
    const bytes = new Buffer(value.length);
    for (let index = 0; index < value.length; index += 1) bytes[index] = Number(value[index]) & 255;
    return bytes;
  }
  static alloc(size, fill) { const bytes = new Buffer(size); if (fill !== undefined) bytes.fill(typeof fill === 'string' ? fill.charCodeAt(0) : fill); return bytes; }
  static isBuffer(value) { return value instanceof Buffer; }
  static byteLength(value, encoding) { return typeof value === 'string' ? encodeBinary(value, encoding).length : value.byteLength; }
  static concat(list) {
    const total = list.reduce((sum, item) => sum + item.length, 0);
    const bytes = new Buffer(total);
    let offset = 0;
    for (const item of list) { bytes.set(item, offset); offset += item.length; }
    return bytes;
  }
  toString(encoding, start = 0, end = this.length) {
    const binary = bytesToLatin1(this.subarray(start, end));
    switch (String(encoding || 'utf8').toLowerCase()) {
      case 'base64': return btoa(binary);
      case 'base64url': return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      case 'hex': return [...binary].map((character) => character.charCodeAt(0).toString(16).padStart(2, '0')).join('');
      case 'latin1': case 'binary': case 'ascii': return binary;
      default: return latin1Utf8(binary);
    }
  }
  toJSON() { return { type: 'Buffer', data: [...this] }; }
}

Object.assign(globalThis, {
  URL, URLSearchParams, Headers, Blob, File, FormData, AbortController, AbortSignal, btoa, atob, TextEncoder, TextDecoder, Buffer,
});
