/** @see https://ai.google.dev/api/caching#Schema */
import { resolveLocalRef } from './schema-ref.ts';

type JsonObject = Record<string, unknown>;

/**
 * Which Gemini schema field the result goes to. `parameters` takes Gemini's OpenAPI-subset
 * Schema: it is accepted by every Gemini model and API version (and by Vertex), which is why tool
 * declarations use it, as @ai-sdk/google does. `responseJsonSchema` takes a JSON Schema subset
 * that keeps unions, `additionalProperties` and non-string enums.
 */
export type SchemaDialect = 'parameters' | 'json';

export interface SchemaRewrite {
  /** Undefined for a tool schema that is an object without properties: `parameters` is then left out. */
  schema: JsonObject | undefined;
  /** One line per change, `<path>: <what>`, for the client's x-switchyard-warnings. */
  changes: string[];
}

/** Copied unchanged; anything not listed (and not handled below) is removed and reported. */
const KEPT: Record<SchemaDialect, Set<string>> = {
  parameters: new Set(['title', 'description', 'nullable', 'minItems', 'maxItems', 'minProperties', 'maxProperties',
    'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'propertyOrdering', 'example']),
  json: new Set(['title', 'description', 'minItems', 'maxItems', 'minimum', 'maximum', 'propertyOrdering']),
};
/** Rejected outside these (pitfall 12: `uri`, `email`, `uuid`… are 400s). */
const FORMATS: Record<string, string[]> = { string: ['date-time', 'enum'], integer: ['int32', 'int64'], number: ['float', 'double'] };
/** Gone after refs are inlined; not worth a warning. */
const SILENT = new Set(['$defs', 'definitions']);

interface Walk {
  dialect: SchemaDialect;
  root: JsonObject;
  changes: string[];
  /** Refs being inlined right now: meeting one again means the schema is recursive. */
  expanding: string[];
}

/** JSON Schema of a tool's input → Gemini `parameters`, with every rewrite listed. */
export function writeGeminiToolSchema(schema: JsonObject): SchemaRewrite {
  const walk: Walk = { dialect: 'parameters', root: schema, changes: [], expanding: [] };
  const out = writeNode(schema, '', walk);
  const empty = (out.type === 'object' || out.type === undefined) && out.properties === undefined && out.anyOf === undefined;
  const changes = empty ? walk.changes.filter((c) => c !== '(root): removed empty "properties"') : walk.changes;
  return { schema: empty ? undefined : out, changes };
}

/** JSON Schema of a structured output → Gemini `responseJsonSchema`. */
export function writeGeminiResponseSchema(schema: JsonObject): SchemaRewrite {
  const walk: Walk = { dialect: 'json', root: schema, changes: [], expanding: [] };
  return { schema: writeNode(schema, '', walk), changes: walk.changes };
}

function writeNode(schema: unknown, path: string, w: Walk): JsonObject {
  if (!isObject(schema)) return {};
  const note = (what: string) => w.changes.push(`${path || '(root)'}: ${what}`);
  if (typeof schema.$ref === 'string') return inlineRef(schema, path, w, note);
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    note('merged "allOf"');
    return writeNode(mergeAll([rest, ...allOf.map((m, i) => writeNode(m, join(path, `allOf.${i}`), w))]), path, w);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case 'type':
        writeType(value, out, w.dialect, note);
        break;
      case 'anyOf':
      case 'oneOf':
        writeUnion(key, value, path, out, w, note);
        break;
      case 'const':
        note('"const" rewritten as "enum"');
        break;
      case 'properties':
        if (isObject(value) && Object.keys(value).length > 0) {
          out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, writeNode(v, join(path, `properties.${k}`), w)]));
        } else if (w.dialect === 'json') out.properties = {};
        else note('removed empty "properties"');
        break;
      case 'items':
        if (Array.isArray(value)) note('tuple "items" reduced to the first item schema');
        out.items = writeNode(Array.isArray(value) ? value[0] : value, join(path, 'items'), w);
        break;
      case 'additionalProperties':
        if (w.dialect === 'json') out.additionalProperties = isObject(value) ? writeNode(value, join(path, 'additionalProperties'), w) : value;
        else note('removed "additionalProperties"');
        break;
      case 'enum':
      case 'format':
      case 'required':
        break; // need the final type, description or properties: handled after the loop
      default:
        if (KEPT[w.dialect].has(key)) out[key] = value;
        else if (!SILENT.has(key)) note(`removed "${key}"`);
    }
  }
  if ('const' in schema) writeEnum([schema.const], out, w.dialect, note);
  else if ('enum' in schema) writeEnum(schema.enum, out, w.dialect, note);
  writeFormat(schema.format, out, note);
  writeRequired(schema.required, out, note);
  return out;
}

function inlineRef(schema: JsonObject, path: string, w: Walk, note: (what: string) => void): JsonObject {
  const { $ref, ...siblings } = schema as JsonObject & { $ref: string };
  if (w.expanding.includes($ref)) {
    note(`recursive "$ref" ${JSON.stringify($ref)} cut (any object accepted here)`);
    return typeof siblings.description === 'string' ? { type: 'object', description: siblings.description } : { type: 'object' };
  }
  const target = resolveLocalRef(w.root, $ref);
  if (!target) {
    note(`removed unresolvable "$ref" ${JSON.stringify($ref)}`);
    return writeNode(siblings, path, w);
  }
  note(`inlined "$ref" ${JSON.stringify($ref)}`);
  w.expanding.push($ref);
  const out = writeNode({ ...target, ...siblings }, path, w);
  w.expanding.pop();
  return out;
}

function writeType(value: unknown, out: JsonObject, dialect: SchemaDialect, note: (what: string) => void): void {
  if (typeof value === 'string') {
    out.type = value.toLowerCase();
    return;
  }
  if (!Array.isArray(value)) return note('removed invalid "type"');
  const types = value.map((t) => String(t).toLowerCase());
  if (dialect === 'json') {
    out.type = types;
    return;
  }
  const nonNull = types.filter((t) => t !== 'null');
  if (nonNull.length < types.length) out.nullable = true;
  if (nonNull.length === 1) out.type = nonNull[0];
  else if (nonNull.length > 1) out.anyOf = nonNull.map((type) => ({ type }));
  note(`type ${JSON.stringify(types)} rewritten as ${nonNull.length > 1 ? '"anyOf"' : JSON.stringify(nonNull[0] ?? 'null')}${nonNull.length < types.length ? ' + nullable' : ''}`);
}

function writeUnion(key: string, value: unknown, path: string, out: JsonObject, w: Walk, note: (what: string) => void): void {
  if (!Array.isArray(value)) return note(`removed invalid "${key}"`);
  const members = value.map((m, i) => writeNode(m, join(path, `${key}.${i}`), w));
  if (w.dialect === 'json') {
    out[key] = members;
    return;
  }
  if (key === 'oneOf') note('"oneOf" rewritten as "anyOf"');
  const nonNull = members.filter((m) => !(m.type === 'null' && Object.keys(m).length === 1));
  if (nonNull.length < members.length) {
    out.nullable = true;
    note(`"${key}" with "null" rewritten as nullable`);
  }
  // A single remaining member is the schema itself; the parent's own keywords win over it.
  if (nonNull.length === 1) for (const [k, v] of Object.entries(nonNull[0]!)) if (!(k in out)) out[k] = v;
  if (nonNull.length > 1) out.anyOf = nonNull;
}

function writeEnum(value: unknown, out: JsonObject, dialect: SchemaDialect, note: (what: string) => void): void {
  if (!Array.isArray(value)) return note('removed invalid "enum"');
  if (dialect === 'json') {
    out.enum = value;
    return;
  }
  const values = value.filter((v) => v !== null);
  if (values.length < value.length) {
    out.nullable = true;
    note('null removed from "enum" (nullable)');
  }
  if (values.every((v) => typeof v === 'string')) {
    out.enum = values;
    // Schema enums belong to strings; a bare enum (often from `const`) gets its type.
    out.type ??= 'string';
    return;
  }
  // Schema enums are strings only; stringifying would change the argument types the tool gets.
  const listed = `Allowed values: ${values.map((v) => JSON.stringify(v)).join(', ')}`;
  out.description = typeof out.description === 'string' ? `${out.description} (${listed})` : listed;
  note('non-string "enum" moved to the description');
}

function writeFormat(format: unknown, out: JsonObject, note: (what: string) => void): void {
  if (format === undefined) return;
  const type = Array.isArray(out.type) ? out.type.find((t) => t !== 'null') : out.type;
  const allowed = typeof type === 'string' ? FORMATS[type] : undefined;
  if (typeof format === 'string' && allowed?.includes(format)) out.format = format;
  else note(`removed unsupported format ${JSON.stringify(format)}`);
}

function writeRequired(required: unknown, out: JsonObject, note: (what: string) => void): void {
  if (!Array.isArray(required)) return;
  const names = isObject(out.properties) ? required.filter((n) => typeof n === 'string' && n in (out.properties as JsonObject)) : [];
  const dropped = required.filter((n) => !names.includes(n));
  if (dropped.length) note(`removed ${JSON.stringify(dropped)} from "required" (no such properties)`);
  if (names.length) out.required = names;
}

/** allOf members (already rewritten) folded into one schema: properties and required are unioned. */
function mergeAll(schemas: unknown[]): JsonObject {
  const out: JsonObject = {};
  for (const s of schemas) {
    if (!isObject(s)) continue;
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' && isObject(v)) out.properties = { ...(out.properties as JsonObject | undefined), ...v };
      else if (k === 'required' && Array.isArray(v)) out.required = [...new Set([...((out.required as unknown[]) ?? []), ...v])];
      else if (!(k in out)) out[k] = v;
    }
  }
  return out;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
