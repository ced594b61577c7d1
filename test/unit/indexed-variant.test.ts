import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { MessagesRequest } from '../../core/families/anthropic/schema.ts';
import { indexedVariant } from '../../core/indexed-variant.ts';

/** Counts how often the catch-all option's discriminator runs. */
function counted() {
  const seen = { runs: 0 };
  const other = v.pipe(
    v.string('must be a string'),
    v.check((type) => {
      seen.runs++;
      return type !== 'text' && type !== 'image';
    }, 'is not valid here'),
  );
  const variant = v.variant(
    'type',
    [
      v.looseObject({ type: v.literal('text'), text: v.string('must be a string') }),
      v.looseObject({ type: v.literal('image'), url: v.string('must be a string') }),
      v.looseObject({ type: other }),
    ],
    'must be a block',
  );
  return { variant, seen };
}

const inputs: unknown[] = [
  { type: 'text', text: 'hi', extra: 1 },
  { type: 'text', text: 3 },
  { type: 'text' },
  { type: 'image', url: 'u' },
  { type: 'image', text: 'not an image' },
  { type: 'tool_reference', name: 'x' },
  { type: 7 },
  { text: 'no type' },
  null,
  'text',
  [],
];

const outcome = (schema: v.GenericSchema, input: unknown) => {
  const result = v.safeParse(schema, input);
  return { success: result.success, output: result.output, issues: result.issues?.map((issue) => ({ message: issue.message, path: v.getDotPath(issue), kind: issue.kind, type: issue.type })) };
};

describe('indexedVariant', () => {
  it('answers exactly what the variant answers, valid or not', () => {
    const { variant } = counted();
    const indexed = indexedVariant(variant);
    for (const input of inputs) expect(outcome(indexed, input), JSON.stringify(input)).toEqual(outcome(variant, input));
  });

  it('runs only the option a known literal names (the other discriminators are never tried)', () => {
    const { variant, seen } = counted();
    const indexed = indexedVariant(variant);
    const before = seen.runs;
    expect(v.safeParse(indexed, { type: 'text', text: 'hi' }).success).toBe(true);
    expect(v.safeParse(indexed, { type: 'image', url: 3 }).success).toBe(false);
    expect(seen.runs).toBe(before);
    // The variant itself tries the catch-all after an option that failed.
    v.safeParse(variant, { type: 'image', url: 3 });
    expect(seen.runs).toBe(before + 1);
    // An unknown type still goes through the variant: the catch-all's discriminator, then the option.
    expect(v.safeParse(indexed, { type: 'tool_reference' }).success).toBe(true);
    expect(seen.runs).toBe(before + 3);
  });

  it('leaves a literal to the variant when another option would take it too', () => {
    const takesAll = v.variant('type', [v.looseObject({ type: v.literal('a'), n: v.number() }), v.looseObject({ type: v.string() })]);
    const indexed = indexedVariant(takesAll);
    // The variant keeps the option without issues: the catch-all, here.
    for (const input of [{ type: 'a', n: 'x' }, { type: 'a', n: 1 }]) expect(outcome(indexed, input)).toEqual(outcome(takesAll, input));
    expect(v.safeParse(indexed, { type: 'a', n: 'x' }).success).toBe(true);
    // Two options with the same literal: the variant keeps the first that passes.
    const twice = v.variant('type', [v.looseObject({ type: v.literal('b'), n: v.number() }), v.looseObject({ type: v.literal('b'), s: v.string() })]);
    for (const input of [{ type: 'b', s: 'x' }, { type: 'b', n: 1 }, { type: 'b' }]) expect(outcome(indexedVariant(twice), input)).toEqual(outcome(twice, input));
  });

  it('keeps MessagesRequest answers and messages the same on a mixed conversation', () => {
    const request = {
      model: 'm',
      max_tokens: 5,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: { type: 'url', url: 'https://x' } }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'tool_use', id: 'a', name: 'b', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 1 }] }] },
        { role: 'robot', content: 'x' },
        { role: 'user', content: [{ type: 'document', source: { type: 'pdf' } }] },
      ],
    };
    expect(outcome(MessagesRequest, request).issues).toEqual([
      { message: 'must be a string', path: 'messages.2.content.0.content.0.text', kind: 'schema', type: 'string' },
      { message: 'must be "user" or "assistant" (or "system" for a mid-conversation system message)', path: 'messages.3.role', kind: 'schema', type: 'variant' },
      { message: 'must be "base64", "url", "text", "content" or "file"', path: 'messages.4.content.0.source.type', kind: 'schema', type: 'variant' },
    ]);
  });
});
