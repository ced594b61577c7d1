import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { MessagesHead, readMessagesHead } from '../../../core/families/anthropic/schema.ts';
import { GeminiGenerateContentHead, readGenerateContentHead } from '../../../core/families/gemini/schema.ts';
import { GatewayError } from '../../../core/errors.ts';

/** Values a client could send for a field (what JSON can carry, and a field left out). */
const VALUES: unknown[] = [undefined, null, '', 'claude', true, false, 0, 1, -1, 1.5, 4096, 1e21, -0, [], [1], {}, { a: 1 }, '1'];

/** Whatever the hand check decides, the answer is the schema's: the same fields, or the same 400. */
function expectSameAsSchema<T extends v.GenericSchema>(schema: T, read: (json: Record<string, unknown>) => unknown, body: Record<string, unknown>, fields: (out: any) => unknown): void {
  const expected = v.safeParse(schema, body);
  let got: unknown;
  let error: unknown;
  try {
    got = read(body);
  } catch (err) {
    error = err;
  }
  const label = JSON.stringify(body);
  if (expected.success) {
    expect(error, label).toBeUndefined();
    expect(fields(got), label).toEqual(fields(expected.output));
  } else {
    expect(error, label).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status, label).toBe(400);
  }
}

describe('request heads read by hand agree with their schemas', () => {
  it('MessagesHead: model, stream and max_tokens, every combination', () => {
    for (const model of VALUES) {
      for (const stream of VALUES) {
        for (const max_tokens of VALUES) {
          const body: Record<string, unknown> = { messages: [] };
          if (model !== undefined) body.model = model;
          if (stream !== undefined) body.stream = stream;
          if (max_tokens !== undefined) body.max_tokens = max_tokens;
          expectSameAsSchema(MessagesHead, readMessagesHead, body, (h) => [h.model, h.stream, h.max_tokens]);
        }
      }
    }
  });

  it('MessagesHead: a bad field still gets the schema\'s message naming it', () => {
    expect(() => readMessagesHead({ model: 'm', max_tokens: -1 })).toThrow('max_tokens: must be 0 or more');
    expect(() => readMessagesHead({ stream: true })).toThrow('model: is required');
  });

  it('GeminiGenerateContentHead: generationConfig and its maxOutputTokens, every combination', () => {
    for (const config of [...VALUES, 'object']) {
      for (const max of VALUES) {
        const body: Record<string, unknown> = { contents: [] };
        if (config === 'object') body.generationConfig = max === undefined ? { temperature: 1 } : { maxOutputTokens: max };
        else if (config !== undefined) body.generationConfig = config;
        expectSameAsSchema(GeminiGenerateContentHead, readGenerateContentHead, body, (h) => h.generationConfig?.maxOutputTokens);
      }
    }
  });
});
