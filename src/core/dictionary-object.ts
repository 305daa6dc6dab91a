/**
 * An empty plain object already in V8's dictionary mode. Parameter names are fresh random keys in every
 * task, so adding them to an ordinary object builds a new hidden class per key, which was the largest
 * cost of generation; deleting a property that is not the last one switches the object to dictionary mode.
 * Key order, prototype and JSON are those of `{}`.
 */
export function dictionaryObject<Value>(): Record<string, Value> {
  const object: Record<string, unknown> = { first: 0, second: 0 };
  delete object.first;
  delete object.second;
  return object as Record<string, Value>;
}

/**
 * `object[key] = value` as an own, enumerable property, the way JSON.parse and Object.fromEntries make it, for any key:
 * assigning "__proto__" would set the prototype instead (and the key would be missing from the JSON). Names in a
 * hand-edited task can be anything.
 */
export function setOwn<Value>(object: Record<string, Value>, key: string, value: Value): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}
