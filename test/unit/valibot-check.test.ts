import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CountTokensRequest, MessagesRequest } from '../../core/families/anthropic/schema.ts';
import { GeminiCountTokensRequest, GeminiGenerateContentRequest } from '../../core/families/gemini/schema.ts';
import { compileCheck } from '../../core/valibot-check.ts';
import { parseWith } from '../../core/validate.ts';
import { mutateBodies } from '../helpers/mutate-json.ts';

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

const richClaude = read('test/fixtures/anthropic/family-request-all-blocks.json');
const richGemini = read('test/fixtures/gemini/family-request-all-parts.json');

const schemas = [
  { name: 'MessagesRequest', schema: MessagesRequest, bodies: [richClaude, read('bench/bodies/claude-openai-sse.json'), read('bench/bodies/claude-openai-json.json'), read('bench/bodies/claude-anthropic-json.json')] },
  { name: 'CountTokensRequest', schema: CountTokensRequest, bodies: [richClaude] },
  { name: 'GeminiGenerateContentRequest', schema: GeminiGenerateContentRequest, bodies: [richGemini, read('bench/bodies/gemini-stream.json'), read('bench/bodies/gemini-generate.json')] },
  { name: 'GeminiCountTokensRequest', schema: GeminiCountTokensRequest, bodies: [{ contents: (richGemini as { contents: unknown }).contents }, { generateContentRequest: { ...(richGemini as object), model: 'models/x' } }] },
] as const;

describe('compileCheck', () => {
  it('compiles every request schema a route validates with', () => {
    for (const { name, schema } of schemas) expect(compileCheck(schema), name).toBeTypeOf('function');
  });

  it('passes the usual bodies, so parseWith hands them back without valibot', () => {
    for (const { name, schema, bodies } of schemas) {
      for (const body of bodies) {
        expect(compileCheck(schema)!(body), name).toBe(true);
        expect(parseWith(schema, body)).toBe(body);
        // What valibot would have made of it: the same content.
        expect(v.parse(schema, body)).toStrictEqual(body);
      }
    }
  });

  it('passes only input valibot accepts and outputs unchanged, over 24,000 seeded mutations', () => {
    for (const { name, schema, bodies } of schemas) {
      const check = compileCheck(schema)!;
      let passed = 0;
      let leftToValibot = 0;
      for (const input of mutateBodies(bodies, 6000, 20261128)) {
        const result = v.safeParse(schema, input);
        if (check(input)) {
          passed++;
          expect(result.success, `${name}: ${JSON.stringify(input)}`).toBe(true);
          expect(result.output, `${name}: ${JSON.stringify(input)}`).toStrictEqual(input);
        } else if (result.success) leftToValibot++;
      }
      // The mutations must reach both answers for the comparison to mean anything.
      expect(passed, name).toBeGreaterThan(600);
      expect(6000 - passed - leftToValibot, name).toBeGreaterThan(600);
      // Left to valibot: arrays for objects, dropped keys, strings a transformation changes.
      expect(leftToValibot, name).toBeGreaterThan(0);
    }
  });

  it('says exactly what valibot says for schemas without objects or transformations', () => {
    const exact = [
      v.string(),
      v.number(),
      v.pipe(v.number(), v.integer(), v.minValue(0)),
      v.pipe(v.string(), v.minLength(1), v.maxLength(3), v.regex(/^a/)),
      v.nullish(v.picklist(['a', 'b'])),
      v.optional(v.literal(0)),
      v.union([v.string(), v.boolean()]),
      v.array(v.pipe(v.string(), v.check((s) => s !== 'x'))),
      v.custom((x) => x === 1),
    ];
    const inputs = [undefined, null, 0, -0, 1, 1.5, NaN, -3, '', 'a', 'abcd', 'b', 'x', true, [], ['a'], ['x'], {}];
    for (const schema of exact) {
      const check = compileCheck(schema)!;
      for (const input of inputs) expect(check(input), `${schema.type} ${String(input)}`).toBe(v.safeParse(schema, input).success);
    }
  });

  it('leaves to valibot the input whose output it would change', () => {
    const obj = compileCheck(v.looseObject({ a: v.optional(v.string()) }))!;
    expect(obj({ a: 'x', b: 1 })).toBe(true);
    expect(obj(['x'])).toBe(false); // valibot: { 0: 'x' }
    expect(obj(JSON.parse('{"constructor":1}'))).toBe(false); // valibot drops the key
    expect(obj(JSON.parse('{"__proto__":{}}'))).toBe(false);
    expect(obj({ a: 1 })).toBe(false);
    const strictOutput = compileCheck(v.object({ a: v.string() }))!;
    expect(strictOutput({ a: 'x' })).toBe(true);
    expect(strictOutput({ a: 'x', b: 1 })).toBe(false); // valibot drops b
    const upper = compileCheck(v.pipe(v.string(), v.toUpperCase(), v.picklist(['AUTO'])))!;
    expect(upper('AUTO')).toBe(true);
    expect(upper('auto')).toBe(false); // valibot: 'AUTO'
    const numbers = compileCheck(v.record(v.string(), v.number()))!;
    expect(numbers({ a: 1 })).toBe(true);
    expect(numbers({ a: 1, b: 'x' })).toBe(false);
    // valibot's union takes the first option that succeeds: here the object, which outputs { 0: 'x' }.
    const union = v.union([v.looseObject({}), v.unknown()]);
    expect(v.parse(union, ['x'])).toStrictEqual({ 0: 'x' });
    expect(compileCheck(union)!(['x'])).toBe(false);
    // An inexact option's "no" is not valibot's: everything after it is valibot's to answer.
    expect(compileCheck(union)!('x')).toBe(false);
    expect(compileCheck(v.union([v.string(), v.looseObject({})]))!({})).toBe(true);
  });

  it('runs the option valibot runs, and leaves that option failing to valibot', () => {
    // valibot's variant fails here (the first option claims it), though the second would pass.
    const schema = v.variant('k', [v.looseObject({ k: v.string(), n: v.pipe(v.number(), v.minValue(5)) }), v.looseObject({ k: v.literal('a'), n: v.number() })]);
    const input = { k: 'a', n: 1 };
    expect(v.safeParse(schema, input).success).toBe(false);
    expect(compileCheck(schema)!(input)).toBe(false);
    expect(compileCheck(schema)!({ k: 'a', n: 6 })).toBe(true);
  });

  it('compiles nothing it does not model, so valibot runs as before', () => {
    expect(compileCheck(v.optional(v.string(), 'x'))).toBeUndefined();
    expect(compileCheck(v.fallback(v.string(), 'x'))).toBeUndefined();
    expect(compileCheck(v.pipe(v.string(), v.transform((s) => s.length)))).toBeUndefined();
    expect(compileCheck(v.looseObject({ a: v.date() }))).toBeUndefined();
    expect(compileCheck(v.looseObject({ toString: v.string() }))).toBeUndefined();
    expect(compileCheck(v.variant('t', [v.variant('u', [v.looseObject({ t: v.literal(1), u: v.literal(2) })])]))).toBeUndefined();
    // Still validated, by valibot.
    expect(parseWith(v.pipe(v.string(), v.transform((s) => s.length)), 'abc')).toBe(3);
  });
});
