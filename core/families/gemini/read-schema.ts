/** @see https://ai.google.dev/api/caching#Schema */

type JsonObject = Record<string, unknown>;

/** Bounds that proto JSON writes as strings (int64), e.g. `"maxItems": "3"`. */
const INT64_FIELDS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/**
 * Gemini's OpenAPI-subset `Schema` (as used by `parameters` and `responseSchema`) → JSON Schema.
 * Types are lower-cased (raw REST clients already send lower case, the SDK upper case),
 * `nullable` becomes a `"null"` type, string bounds become numbers, `example` becomes `examples`
 * and `propertyOrdering` (an ordering hint with no JSON Schema meaning) is dropped.
 */
export function readGeminiSchema(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case 'type': {
        const type = typeof value === 'string' ? value.toLowerCase() : value;
        if (type !== 'type_unspecified') out.type = type;
        break;
      }
      case 'nullable':
      case 'propertyOrdering':
        break;
      case 'properties':
        out.properties = isObject(value) ? mapValues(value, (s) => (isObject(s) ? readGeminiSchema(s) : s)) : value;
        break;
      case 'items':
        out.items = isObject(value) ? readGeminiSchema(value) : value;
        break;
      case 'anyOf':
        out.anyOf = Array.isArray(value) ? value.map((s) => (isObject(s) ? readGeminiSchema(s) : s)) : value;
        break;
      case 'example':
        out.examples = [value];
        break;
      default:
        setOwn(out, key, INT64_FIELDS.has(key) && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
    }
  }
  if (schema.nullable === true) addNull(out);
  return out;
}

/** The root of a function's parameters must be an object schema. */
export function readGeminiParameters(schema: JsonObject | undefined): JsonObject {
  if (!schema) return { type: 'object', properties: {} };
  const out = readGeminiSchema(schema);
  if (out.type === undefined && out.anyOf === undefined) out.type = 'object';
  return out;
}

function addNull(out: JsonObject): void {
  if (typeof out.type === 'string') out.type = out.type === 'null' ? 'null' : [out.type, 'null'];
  else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
}

function mapValues(obj: JsonObject, fn: (value: unknown) => unknown): JsonObject {
  const out: JsonObject = {};
  for (const [k, value] of Object.entries(obj)) setOwn(out, k, fn(value));
  return out;
}

/**
 * `out[key] = value` as an own key even for `__proto__` (a property a client named so): on Node
 * and Bun that assignment would set the object's prototype instead and lose the key, while Deno,
 * which has no `__proto__` accessor, would keep it.
 */
function setOwn(out: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
