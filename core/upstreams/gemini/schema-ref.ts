/** @see https://json-schema.org/draft/2020-12/json-schema-core#name-direct-references-with-ref */

/**
 * A local `$ref` ("#", "#/$defs/Name", "#/definitions/Name", any JSON pointer into the root)
 * → the schema it points at; undefined for remote refs and dangling pointers.
 */
export function resolveLocalRef(root: Record<string, unknown>, ref: string): Record<string, unknown> | undefined {
  if (!ref.startsWith('#')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodePointer(raw);
    if (key === undefined) return undefined;
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'object' && current !== null && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined;
}

function decodePointer(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return undefined;
  }
}
