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
