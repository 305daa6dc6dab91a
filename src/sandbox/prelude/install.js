// Fragment of the sandbox installer (see runtime.js), last: `require`, the host bindings, and the controls the
// host driver calls (they are returned to the host, never installed as globals).

const modules = { axios, 'form-data': FormData, 'node-fetch': fetch };
globalThis.require = function require(name) {
  const key = String(name);
  if (hasOwn(modules, key)) return modules[key];
  const error = new Error("Cannot find module '" + key + "'");
  error.code = 'MODULE_NOT_FOUND';
  throw error;
};

// CommonJS leftovers such as `module.exports = main` must not fail the program.
globalThis.module = { exports: {} };
globalThis.exports = globalThis.module.exports;

function bindingFunction(binding) {
  const path = binding.path;
  if (binding.returns === 'value') {
    return function (...args) {
      const reply = hostCall('binding', { path, args: args.map(toJsonValue), sync: true });
      if (reply.kind === 'stop') haltForHost();
      if (reply.kind === 'value') return reply.value;
      throw makeError(reply.error);
    };
  }
  return function (...args) {
    let jsonArgs;
    try {
      jsonArgs = args.map(toJsonValue);
    } catch (error) {
      return Promise.reject(error);
    }
    const reply = hostCall('binding', { path, args: jsonArgs, sync: false });
    if (reply.kind === 'error') return Promise.reject(makeError(reply.error));
    return awaitHostCall(reply.callId).then(undefined, (error) => Promise.reject(makeError(error)));
  };
}

for (const binding of settings.bindings) {
  let target = globalThis;
  for (const segment of binding.path.slice(0, -1)) {
    if (!hasOwn(target, segment) || target[segment] === null || typeof target[segment] !== 'object') target[segment] = {};
    target = target[segment];
  }
  const name = binding.path[binding.path.length - 1];
  const implementation = bindingFunction(binding);
  Object.defineProperty(implementation, 'name', { value: name });
  target[name] = implementation;
}

return {
  /** Settles an async host call: reply is {ok: true, value} or {ok: false, error}. */
  settle(callId, replyJson) {
    const pending = pendingCalls.get(callId);
    if (!pending) return;
    pendingCalls.delete(callId);
    const reply = jsonParse(replyJson);
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(reply.error);
  },
  fireTimer() {
    return fireNextTimer();
  },
  /** The first error thrown by a timer callback, as JSON, or ''. */
  takeTimerError() {
    if (!hasUncaughtTimerError) return '';
    hasUncaughtTimerError = false;
    return jsonStringify(describeError(uncaughtTimerError));
  },
  /**
   * 'v' + the value's JSON; '' when it has none (undefined, a function); 'n' when it nests too deeply; 'e' + the
   * description of why it cannot be JSON (a cycle, a BigInt, a toJSON or getter that throws).
   */
  toJson(value) {
    try {
      const text = jsonStringify(value);
      return text === undefined ? '' : 'v' + text;
    } catch (error) {
      return isStackOverflow(error) ? 'n' : 'e' + jsonStringify(describeError(error));
    }
  },
  describe(error) {
    return jsonStringify(describeError(error));
  },
};
