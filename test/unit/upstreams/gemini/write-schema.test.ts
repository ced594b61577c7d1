import { describe, expect, it } from 'vitest';
import { writeGeminiResponseSchema, writeGeminiToolSchema } from '../../../../core/upstreams/gemini/write-schema.ts';

describe('writeGeminiToolSchema (pitfall 12)', () => {
  it.each([
    {
      name: 'a Claude Code style schema',
      input: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          url: { type: 'string', format: 'uri', description: 'Page to fetch' },
          timeout: { type: 'number', default: 30, minimum: 0 },
          headers: { type: 'object', additionalProperties: { type: 'string' } },
          mode: { anyOf: [{ type: 'string', enum: ['fast', 'full'] }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'string' }, examples: [['x']] },
        },
        required: ['url', 'missing'],
        additionalProperties: false,
      },
      schema: {
        type: 'object',
        properties: {
          url: { type: 'string', description: 'Page to fetch' },
          timeout: { type: 'number', minimum: 0 },
          headers: { type: 'object' },
          mode: { nullable: true, type: 'string', enum: ['fast', 'full'] },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['url'],
      },
      changes: [
        '(root): removed "$schema"',
        'properties.url: removed unsupported format "uri"',
        'properties.timeout: removed "default"',
        'properties.headers: removed "additionalProperties"',
        'properties.mode: "anyOf" with "null" rewritten as nullable',
        'properties.tags: removed "examples"',
        '(root): removed "additionalProperties"',
        '(root): removed ["missing"] from "required" (no such properties)',
      ],
    },
    {
      name: '$ref into $defs, inlined, recursion cut',
      input: {
        type: 'object',
        properties: { tree: { $ref: '#/$defs/Node', description: 'Root node' } },
        $defs: {
          Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } },
        },
      },
      schema: {
        type: 'object',
        properties: {
          tree: {
            type: 'object',
            description: 'Root node',
            properties: { name: { type: 'string' }, children: { type: 'array', items: { type: 'object' } } },
          },
        },
      },
      changes: [
        'properties.tree: inlined "$ref" "#/$defs/Node"',
        'properties.tree.properties.children.items: recursive "$ref" "#/$defs/Node" cut (any object accepted here)',
      ],
    },
    {
      name: 'type arrays, const, non-string enum, oneOf, allOf, empty properties, unknown keywords',
      input: {
        type: 'OBJECT',
        properties: {
          a: { type: ['string', 'null'] },
          b: { type: ['string', 'integer'] },
          c: { const: 'fixed' },
          d: { type: 'integer', enum: [1, 2, 3], description: 'Level' },
          e: { oneOf: [{ type: 'string' }, { type: 'number' }] },
          f: { allOf: [{ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }, { properties: { y: { type: 'integer', format: 'int32' } } }] },
          g: { type: 'object', properties: {} },
          h: { type: 'string', format: 'date-time', pattern: '^\\d', exclusiveMinimum: 1 },
          i: { type: 'string', enum: ['on', 'off', null] },
        },
      },
      schema: {
        type: 'object',
        properties: {
          a: { nullable: true, type: 'string' },
          b: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          c: { type: 'string', enum: ['fixed'] },
          d: { type: 'integer', description: 'Level (Allowed values: 1, 2, 3)' },
          e: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          f: { type: 'object', properties: { x: { type: 'string' }, y: { type: 'integer', format: 'int32' } }, required: ['x'] },
          g: { type: 'object' },
          h: { type: 'string', format: 'date-time', pattern: '^\\d' },
          i: { type: 'string', nullable: true, enum: ['on', 'off'] },
        },
      },
      changes: [
        'properties.a: type ["string","null"] rewritten as "string" + nullable',
        'properties.b: type ["string","integer"] rewritten as "anyOf"',
        'properties.c: "const" rewritten as "enum"',
        'properties.d: non-string "enum" moved to the description',
        'properties.e: "oneOf" rewritten as "anyOf"',
        'properties.f: merged "allOf"',
        'properties.g: removed empty "properties"',
        'properties.h: removed "exclusiveMinimum"',
        'properties.i: null removed from "enum" (nullable)',
      ],
    },
    {
      name: 'an object without properties: parameters left out',
      input: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, additionalProperties: false },
      schema: undefined,
      changes: ['(root): removed "$schema"', '(root): removed "additionalProperties"'],
    },
    {
      name: 'an already clean schema is left alone',
      input: { type: 'object', properties: { city: { type: 'string', description: 'City' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'] },
      schema: { type: 'object', properties: { city: { type: 'string', description: 'City' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'] },
      changes: [],
    },
  ])('$name', ({ input, schema, changes }) => {
    expect(writeGeminiToolSchema(input)).toEqual({ schema, changes });
  });

  it('is idempotent: its own output needs no further change', () => {
    const once = writeGeminiToolSchema({
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { allOf: [{ type: 'object', properties: { x: { type: 'integer' } } }] } },
    });
    expect(writeGeminiToolSchema(once.schema!)).toEqual({ schema: once.schema, changes: [] });
  });
});

describe('writeGeminiResponseSchema', () => {
  it('keeps what responseJsonSchema supports and reports the rest', () => {
    expect(
      writeGeminiResponseSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: ['string', 'null'], format: 'email', minLength: 1 }, b: { const: 3 }, c: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
        additionalProperties: false,
        required: ['a'],
      }),
    ).toEqual({
      schema: {
        type: 'object',
        properties: { a: { type: ['string', 'null'] }, b: { enum: [3] }, c: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
        additionalProperties: false,
        required: ['a'],
      },
      changes: [
        '(root): removed "$schema"',
        'properties.a: removed "minLength"',
        'properties.a: removed unsupported format "email"',
        'properties.b: "const" rewritten as "enum"',
      ],
    });
  });
});
