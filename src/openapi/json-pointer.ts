/**
 * JSON pointers into a bundled OpenAPI document. A pointer that passes through a `$ref` is
 * rewritten to the referenced location, so that ajv (which cannot walk through a `$ref` node)
 * can compile `{ $ref: 'openapi#<pointer>' }` from the bundled document.
 */
import type { JsonValue } from '../core/json.ts';
import { isJsonObject } from '../core/json.ts';

export function decodePointer(pointer: string): string[] {
  const fragment = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (fragment === '' || fragment === '/') return [];
  return fragment.slice(1).split('/').map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function encodePointer(segments: readonly string[]): string {
  return `#${segments.map((segment) => `/${encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`;
}

/** The segments of `segments` after following every local `$ref` on the way (undefined parts are kept as is). */
export function canonicalPointer(root: JsonValue, segments: readonly string[]): string[] {
  let current: string[] = [];
  let node: JsonValue | undefined = root;
  const follow = () => {
    for (let guard = 0; guard < 64 && isJsonObject(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#'); guard += 1) {
      current = decodePointer(node.$ref);
      node = resolveSegments(root, current);
    }
  };
  for (const segment of segments) {
    follow();
    current = [...current, segment];
    node = Array.isArray(node) ? node[Number(segment)] : isJsonObject(node) ? node[segment] : undefined;
  }
  follow();
  return current;
}

export function resolveSegments(root: JsonValue, segments: readonly string[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const segment of segments) {
    node = Array.isArray(node) ? node[Number(segment)] : isJsonObject(node) ? node[segment] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
