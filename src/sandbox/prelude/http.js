// Fragment of the sandbox installer (see runtime.js): the fake HTTP clients. Every request is handed to the host,
// which records it and answers it; nothing is sent. axios mirrors axios 1.x (merging, header casing, request
// transformation, validateStatus) so the recorded config is what the reference's axios-mock-adapter sees.

const statusTexts = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found',
  304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 409: 'Conflict', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
};

/** Hands a wire request to the host: resolves with {status, headers, data} or rejects with {networkError}. */
function sendRequest(wire) {
  const reply = hostCall('request', wire);
  if (reply.kind === 'stop') haltForHost();
  if (reply.kind === 'response') return Promise.resolve(reply.response);
  if (reply.kind === 'error') return Promise.reject({ networkError: reply.error });
  return awaitHostCall(reply.callId).then(
    (response) => response,
    (error) => Promise.reject({ networkError: error }),
  );
}

function bodyText(data) {
  if (data === undefined || data === null) return '';
  return typeof data === 'string' ? data : jsonStringify(data);
}

function wireBody(data) {
  if (data === undefined) return { kind: 'none' };
  if (typeof data === 'string') return { kind: 'string', text: data };
  if (data instanceof FormData) return { kind: 'form-data', entries: data._wireEntries() };
  if (data instanceof Blob) return { kind: 'string', text: data._text };
  if (data instanceof URLSearchParams) return { kind: 'string', text: data.toString() };
  return { kind: 'value', value: toJsonValue(data) };
}

// ---------------------------------------------------------------- axios ----

const axiosDefaultAccept = 'application/json, text/plain, */*';
const methodsWithoutData = ['delete', 'get', 'head', 'options'];
const methodsWithData = ['post', 'put', 'patch'];

function isPlainObject(value) {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function findKeyCaseless(object, name) {
  const lower = String(name).trim().toLowerCase();
  for (const key of objectKeys(object)) if (key.toLowerCase() === lower) return key;
  return null;
}

function normalizeHeaderValue(value) {
  if (value === false || value === null || value === undefined) return value;
  return Array.isArray(value) ? value.map(normalizeHeaderValue) : String(value);
}

class AxiosHeaders {
  constructor(init) {
    if (init) this.set(init);
  }

  /** set(name, value, rewrite) or set(object, rewrite); an existing name keeps its first casing. */
  set(name, value, rewrite) {
    if (name instanceof AxiosHeaders || isPlainObject(name)) {
      for (const key of objectKeys(name)) this.set(key, name[key], value);
      return this;
    }
    if (typeof name === 'string' && name.includes('\n') && value === undefined) {
      for (const line of name.split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) this.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      return this;
    }
    const key = findKeyCaseless(this, name);
    if (!key || this[key] === undefined || rewrite === true || (rewrite === undefined && this[key] !== false)) {
      this[key || String(name)] = normalizeHeaderValue(value);
    }
    return this;
  }

  get(name) { const key = findKeyCaseless(this, name); return key ? this[key] : undefined; }
  has(name) { const key = findKeyCaseless(this, name); return Boolean(key) && this[key] !== undefined && this[key] !== false; }
  delete(name) { const key = findKeyCaseless(this, name); if (key) { delete this[key]; return true; } return false; }
  clear() { for (const key of objectKeys(this)) delete this[key]; return true; }
  concat(...targets) { return AxiosHeaders.concat(this, ...targets); }
  normalize() { return this; }

  toJSON() {
    const result = {};
    for (const key of objectKeys(this)) {
      const value = this[key];
      if (value !== null && value !== undefined && value !== false) result[key] = value;
    }
    return result;
  }

  toString() { return objectKeys(this.toJSON()).map((key) => key + ': ' + this[key]).join('\n'); }

  static from(thing) { return thing instanceof AxiosHeaders ? thing : new AxiosHeaders(thing); }
  static concat(first, ...targets) {
    const computed = new AxiosHeaders(first);
    for (const target of targets) if (target) computed.set(target);
    return computed;
  }
}

for (const header of ['Content-Type', 'Content-Length', 'Accept', 'Accept-Encoding', 'User-Agent', 'Authorization']) {
  const suffix = header.replace(/-/g, '');
  AxiosHeaders.prototype['set' + suffix] = function (value, rewrite) { return this.set(header, value, rewrite); };
  AxiosHeaders.prototype['get' + suffix] = function () { return this.get(header); };
  AxiosHeaders.prototype['has' + suffix] = function () { return this.has(header); };
}

/** axios's caseless deep merge of header objects (first casing wins, later values win). */
function mergeCaseless(...sources) {
  const result = {};
  for (const source of sources) {
    if (!source) continue;
    const plain = source instanceof AxiosHeaders ? { ...source } : source;
    for (const key of objectKeys(plain)) {
      const targetKey = findKeyCaseless(result, key) || key;
      const value = plain[key];
      if (isPlainObject(result[targetKey]) && isPlainObject(value)) result[targetKey] = mergeCaseless(result[targetKey], value);
      else if (isPlainObject(value)) result[targetKey] = mergeCaseless(value);
      else result[targetKey] = value;
    }
  }
  return result;
}

function deepMergeValue(target, source) {
  if (isPlainObject(target) && isPlainObject(source)) {
    const result = { ...target };
    for (const key of objectKeys(source)) result[key] = deepMergeValue(result[key], source[key]);
    return result;
  }
  if (isPlainObject(source)) return deepMergeValue({}, source);
  if (Array.isArray(source)) return source.slice();
  return source;
}

/** axios's mergeConfig: url/method/data come only from the second config, headers merge caselessly. */
function mergeConfig(first, second) {
  const left = first || {};
  const right = second || {};
  const merged = {};
  const keys = new Set([...objectKeys(left), ...objectKeys(right)]);
  for (const key of keys) {
    const leftValue = left[key];
    const rightValue = right[key];
    if (key === 'url' || key === 'method' || key === 'data') {
      if (rightValue !== undefined) merged[key] = rightValue;
    } else if (key === 'headers') {
      merged.headers = mergeCaseless(leftValue, rightValue);
    } else if (rightValue !== undefined) {
      merged[key] = deepMergeValue(leftValue, rightValue);
    } else if (leftValue !== undefined) {
      merged[key] = deepMergeValue(undefined, leftValue);
    }
  }
  return merged;
}

function isFlatArray(array) {
  return array.every((item) => item === null || typeof item !== 'object');
}

function renderFormKey(path, key) {
  if (!path) return key;
  return path.concat(key).map((token, index) => {
    const bare = String(token).replace(/\[\]$/, '');
    return index ? '[' + bare + ']' : bare;
  }).join('');
}

/** axios's toFormData key scheme: `a[b][c]`, top-level flat arrays as `k[]`, null/undefined skipped. */
function flattenFormEntries(data) {
  const entries = [];
  const convert = (value) => (value instanceof RealDate ? value.toISOString() : value);
  const visit = (value, path) => {
    const keys = Array.isArray(value) ? value.map((_, index) => index) : objectKeys(value);
    for (const key of keys) {
      const item = value[key];
      if (item === undefined || item === null) continue;
      if (item && !path && typeof item === 'object' && !(item instanceof Blob) && !(item instanceof RealDate)) {
        if (String(key).endsWith('{}')) {
          entries.push([String(key).slice(0, -2), jsonStringify(item)]);
          continue;
        }
        if (Array.isArray(item) && isFlatArray(item)) {
          const bare = String(key).replace(/\[\]$/, '');
          for (const element of item) if (element !== undefined && element !== null) entries.push([bare + '[]', convert(element)]);
          continue;
        }
      }
      if ((isPlainObject(item) || Array.isArray(item))) {
        visit(item, (path || []).concat(String(key)));
        continue;
      }
      entries.push([renderFormKey(path, String(key)), convert(item)]);
    }
  };
  visit(data, null);
  return entries;
}

function stringifySafely(value) {
  if (typeof value === 'string') {
    try {
      jsonParse(value);
      return value.trim();
    } catch (error) {
      // Not JSON: axios JSON-encodes the string itself.
    }
  }
  return jsonStringify(value);
}

/** axios's default transformRequest. */
function transformRequestData(data, headers) {
  const contentType = headers.getContentType() || '';
  const hasJsonContentType = contentType.indexOf('application/json') > -1;
  const isObjectPayload = data !== null && typeof data === 'object';
  if (data instanceof FormData) {
    if (!hasJsonContentType) return data;
    const object = {};
    for (const [key, value] of data._wireEntries()) object[key] = value;
    return jsonStringify(object);
  }
  if (data instanceof Blob || data instanceof ArrayBuffer) return data;
  if (data instanceof URLSearchParams) {
    headers.setContentType('application/x-www-form-urlencoded;charset=utf-8', false);
    return data.toString();
  }
  if (isObjectPayload) {
    if (contentType.indexOf('application/x-www-form-urlencoded') > -1) {
      return new URLSearchParams(flattenFormEntries(data).map(([key, value]) => [key, String(value)])).toString();
    }
    if (contentType.indexOf('multipart/form-data') > -1) {
      const form = new FormData();
      for (const [key, value] of flattenFormEntries(data)) form.append(key, value);
      return form;
    }
  }
  if (isObjectPayload || hasJsonContentType) {
    headers.setContentType('application/json', false);
    return stringifySafely(data);
  }
  return data;
}

function parseResponseData(data) {
  if (typeof data !== 'string' || data === '') return data;
  try {
    return jsonParse(data);
  } catch (error) {
    return data;
  }
}

class AxiosError extends Error {
  constructor(message, code, config, request, response) {
    super(message);
    this.name = 'AxiosError';
    this.isAxiosError = true;
    if (code) this.code = code;
    if (config) this.config = config;
    if (request) this.request = request;
    if (response) {
      this.response = response;
      this.status = response.status;
    }
  }
  toJSON() {
    return { message: this.message, name: this.name, code: this.code, status: this.status };
  }
}
AxiosError.ERR_BAD_REQUEST = 'ERR_BAD_REQUEST';
AxiosError.ERR_BAD_RESPONSE = 'ERR_BAD_RESPONSE';
AxiosError.ERR_NETWORK = 'ERR_NETWORK';

class CanceledError extends AxiosError {
  constructor(message, config) {
    super(message === undefined ? 'canceled' : message, 'ERR_CANCELED', config);
    this.name = 'CanceledError';
    this.__CANCEL__ = true;
  }
}

function isAbsoluteUrl(url) {
  return /^([a-z][a-z\d+\-.]*:)?\/\//i.test(url);
}

function buildFullPath(baseUrl, url) {
  if (baseUrl && !isAbsoluteUrl(url)) return url ? String(baseUrl).replace(/\/?\/$/, '') + '/' + url.replace(/^\/+/, '') : String(baseUrl);
  return url;
}

function paramsAsJson(params) {
  if (params === undefined || params === null) return {};
  if (params instanceof URLSearchParams) {
    const result = {};
    for (const [key, value] of params) result[key] = value;
    return result;
  }
  if (typeof params !== 'object') return {};
  const json = toJsonValue(params);
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? json : {};
}

function headersAsRecord(headers) {
  const record = {};
  const json = headers.toJSON();
  for (const key of objectKeys(json)) record[key] = Array.isArray(json[key]) ? json[key].join(', ') : String(json[key]);
  return record;
}

function applyTransforms(transforms, data, headers, config) {
  const list = Array.isArray(transforms) ? transforms : [transforms];
  let result = data;
  for (const transform of list) if (typeof transform === 'function') result = transform.call(config, result, headers);
  return result;
}

/** Stack overflows in the shims below mean the program's data nests too deeply: a limit, not its error. */
function dispatchRequest(config) {
  return guardNesting(() => dispatchRequestUnguarded(config));
}

function dispatchRequestUnguarded(config) {
  if (config.signal && config.signal.aborted) return Promise.reject(new CanceledError(undefined, config));
  config.headers = AxiosHeaders.from(config.headers);
  config.data = config.transformRequest
    ? applyTransforms(config.transformRequest, config.data, config.headers, config)
    : transformRequestData(config.data, config.headers);
  if (methodsWithData.includes(config.method)) config.headers.setContentType('application/x-www-form-urlencoded', false);
  const url = buildFullPath(config.baseURL, config.url === undefined ? '' : String(config.url));
  const wire = {
    client: 'axios',
    method: config.method,
    url,
    headers: headersAsRecord(config.headers),
    params: paramsAsJson(config.params),
    body: wireBody(config.data),
  };
  return sendRequest(wire).then(
    (reply) => {
      const headers = {};
      for (const key of objectKeys(reply.headers || {})) headers[key.toLowerCase()] = reply.headers[key];
      let data = reply.data;
      if (config.responseType !== 'text') data = parseResponseData(data);
      else data = bodyText(data);
      const response = {
        data,
        status: reply.status,
        statusText: statusTexts[reply.status] || '',
        headers: new AxiosHeaders(headers),
        config,
        request: {},
      };
      const validateStatus = config.validateStatus;
      if (!validateStatus || validateStatus(response.status)) return response;
      const code = response.status >= 400 && response.status < 500 ? 'ERR_BAD_REQUEST' : 'ERR_BAD_RESPONSE';
      throw new AxiosError('Request failed with status code ' + response.status, code, config, response.request, response);
    },
    (failure) => {
      if (failure && failure.networkError) throw new AxiosError(failure.networkError.message || 'Network Error', 'ERR_NETWORK', config, {});
      throw failure;
    },
  );
}

class InterceptorManager {
  constructor() { this.handlers = []; }
  use(fulfilled, rejected) { this.handlers.push({ fulfilled, rejected }); return this.handlers.length - 1; }
  eject(id) { if (this.handlers[id]) this.handlers[id] = null; }
  clear() { this.handlers = []; }
  forEach(callback) { for (const handler of this.handlers) if (handler) callback(handler); }
}

const axiosBaseDefaults = {
  headers: {
    common: { Accept: axiosDefaultAccept, 'Content-Type': undefined },
    delete: {}, get: {}, head: {}, post: {}, put: {}, patch: {},
  },
  timeout: 0,
  maxContentLength: -1,
  maxBodyLength: -1,
  validateStatus(status) { return status >= 200 && status < 300; },
};

function createAxiosInstance(defaults) {
  const interceptors = { request: new InterceptorManager(), response: new InterceptorManager() };

  function request(configOrUrl, maybeConfig) {
    return guardNesting(() => requestUnguarded(configOrUrl, maybeConfig));
  }

  function requestUnguarded(configOrUrl, maybeConfig) {
    let config;
    if (typeof configOrUrl === 'string' || configOrUrl instanceof URL) {
      config = { ...(maybeConfig || {}), url: String(configOrUrl) };
    } else {
      config = configOrUrl || {};
    }
    config = mergeConfig(instance.defaults, config);
    config.method = String(config.method || instance.defaults.method || 'get').toLowerCase();
    const headers = config.headers || {};
    const context = mergeCaseless(headers.common, headers[config.method]);
    const rest = { ...headers };
    for (const method of ['delete', 'get', 'head', 'post', 'put', 'patch', 'common']) delete rest[method];
    config.headers = AxiosHeaders.concat(context, rest);

    const requestHandlers = [];
    interceptors.request.forEach((handler) => requestHandlers.unshift(handler));
    const responseHandlers = [];
    interceptors.response.forEach((handler) => responseHandlers.push(handler));
    let promise;
    if (requestHandlers.length === 0) {
      // Like axios without request interceptors: dispatch synchronously, so the request exists once the call returns.
      try {
        promise = dispatchRequest(config);
      } catch (error) {
        promise = Promise.reject(error);
      }
    } else {
      promise = Promise.resolve(config);
      for (const handler of requestHandlers) promise = promise.then(handler.fulfilled, handler.rejected);
      promise = promise.then(dispatchRequest);
    }
    for (const handler of responseHandlers) promise = promise.then(handler.fulfilled, handler.rejected);
    return promise;
  }

  const instance = function axios(configOrUrl, config) { return request(configOrUrl, config); };
  instance.defaults = defaults;
  instance.interceptors = interceptors;
  instance.request = request;
  for (const method of methodsWithoutData) {
    instance[method] = (url, config) => guardNesting(() => request(mergeConfig(config || {}, { method, url, data: (config || {}).data })));
  }
  for (const method of methodsWithData) {
    instance[method] = (url, data, config) => guardNesting(() => request(mergeConfig(config || {}, { method, url, data })));
    instance[method + 'Form'] = (url, data, config) => guardNesting(() => request(mergeConfig(config || {}, {
      method, url, data, headers: { 'Content-Type': 'multipart/form-data' },
    })));
  }
  instance.getUri = (config) => {
    const merged = mergeConfig(instance.defaults, config);
    const url = buildFullPath(merged.baseURL, merged.url === undefined ? '' : String(merged.url));
    const query = new URLSearchParams(objectKeys(paramsAsJson(merged.params)).map((key) => [key, String(merged.params[key])])).toString();
    return query ? url + (url.includes('?') ? '&' : '?') + query : url;
  };
  instance.create = (instanceConfig) => guardNesting(() => createAxiosInstance(mergeConfig(defaults, instanceConfig)));
  instance.AxiosError = AxiosError;
  instance.AxiosHeaders = AxiosHeaders;
  instance.CanceledError = CanceledError;
  instance.isAxiosError = (value) => value !== null && typeof value === 'object' && value.isAxiosError === true;
  instance.isCancel = (value) => Boolean(value && value.__CANCEL__);
  instance.all = (promises) => Promise.all(promises);
  instance.spread = (callback) => (array) => callback(...array);
  instance.mergeConfig = mergeConfig;
  instance.VERSION = '1.7.9';
  instance.default = instance;
  return instance;
}

const axios = createAxiosInstance(mergeConfig({}, axiosBaseDefaults));
globalThis.axios = axios;

// ---------------------------------------------------------------- fetch ----

class Response {
  constructor(body, init = {}) {
    this._text = bodyText(body);
    this.status = init.status === undefined ? 200 : Number(init.status);
    this.statusText = init.statusText === undefined ? statusTexts[this.status] || '' : String(init.statusText);
    this.ok = this.status >= 200 && this.status < 300;
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.url = init.url || '';
    this.redirected = false;
    this.type = 'basic';
    this.bodyUsed = false;
  }
  _consume() {
    if (this.bodyUsed) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.bodyUsed = true;
    return Promise.resolve(this._text);
  }
  text() { return this._consume(); }
  json() { return this._consume().then((text) => jsonParse(text)); }
  blob() { return this._consume().then((text) => new Blob([text], { type: this.headers.get('content-type') || '' })); }
  clone() {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    return new Response(this._text, { status: this.status, statusText: this.statusText, headers: new Headers(this.headers), url: this.url });
  }
  static json(data, init = {}) {
    const headers = new Headers(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(jsonStringify(data), { ...init, headers });
  }
}

function fetch(input, init) {
  return new Promise((resolve, reject) => guardNesting(() => {
    const options = init || {};
    const fromRequest = input !== null && typeof input === 'object' && !(input instanceof URL) ? input : {};
    const url = typeof input === 'string' || input instanceof URL ? String(input) : String(fromRequest.url);
    const method = String(options.method || fromRequest.method || 'GET').toLowerCase();
    const headers = new Headers(options.headers || fromRequest.headers);
    const body = options.body !== undefined ? options.body : fromRequest.body;
    let wire = { kind: 'none' };
    if (body !== undefined && body !== null) {
      if (method === 'get' || method === 'head') {
        reject(new TypeError('Request with GET/HEAD method cannot have body.'));
        return;
      }
      let contentType = 'text/plain;charset=UTF-8';
      if (body instanceof URLSearchParams) contentType = 'application/x-www-form-urlencoded;charset=UTF-8';
      else if (body instanceof FormData) contentType = 'multipart/form-data';
      else if (body instanceof Blob) contentType = body.type;
      wire = body instanceof FormData ? wireBody(body) : { kind: 'string', text: body instanceof Blob ? body._text : String(body) };
      if (!headers.has('content-type') && contentType) headers.set('Content-Type', contentType);
    }
    if (options.signal && options.signal.aborted) {
      reject(options.signal.reason);
      return;
    }
    sendRequest({ client: 'fetch', method, url, headers: headers._asWritten(), params: {}, body: wire }).then(
      (reply) => resolve(new Response(reply.data, { status: reply.status, headers: reply.headers || {}, url })),
      (failure) => reject(failure && failure.networkError ? new TypeError('fetch failed') : failure),
    );
  }));
}

globalThis.fetch = fetch;
globalThis.Response = Response;
