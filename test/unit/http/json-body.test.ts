import { describe, expect, it } from 'vitest';
import { JsonBody, KEEP_OBJECT_BYTES } from '../../../core/http/json-body.ts';

function bodyOf(value: Record<string, unknown>): JsonBody {
  const text = JSON.stringify(value);
  return new JsonBody(new TextEncoder().encode(text), text, JSON.parse(text) as Record<string, unknown>);
}

describe('JsonBody', () => {
  it('keeps a small body’s object through release: the same object, no second parse', () => {
    const body = bodyOf({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const before = body.object;
    body.release();
    expect(body.object).toBe(before);
    expect(body.head).toBe(before);
  });

  it('lets a large body’s object go, keeps its top-level scalars, and parses it again once when asked', () => {
    const value = { model: 'm', stream: true, max_tokens: 5, stop: null, system: 'x'.repeat(KEEP_OBJECT_BYTES), messages: [{ role: 'user', content: 'hi' }], metadata: { a: 1 } };
    const body = bodyOf(value);
    const before = body.object;
    body.release();
    expect(body.head).toEqual({ model: 'm', stream: true, max_tokens: 5, stop: null, system: value.system });
    const again = body.object;
    expect(again).not.toBe(before);
    expect(again).toEqual(value);
    expect(body.object).toBe(again);
  });

  it('leaves a `__proto__` member out of the head rather than make it the head’s prototype', () => {
    const text = `{"__proto__":null,"model":"m","pad":"${'x'.repeat(KEEP_OBJECT_BYTES)}"}`;
    const body = new JsonBody(new TextEncoder().encode(text), text, JSON.parse(text) as Record<string, unknown>);
    body.release();
    expect(Object.getPrototypeOf(body.head)).toBe(Object.prototype);
    expect(body.head.model).toBe('m');
  });
});
