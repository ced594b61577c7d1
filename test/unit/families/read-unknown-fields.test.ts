import { describe, expect, it } from 'vitest';
import { readUnknownFields } from '../../../core/families/read-unknown-fields.ts';
import { readAnthropicRequest } from '../../../core/families/anthropic/read-request.ts';
import type { MessagesRequest } from '../../../core/families/anthropic/schema.ts';

describe('readUnknownFields', () => {
  it('copies the members the known set does not name, in order, and no undefined one', () => {
    const out = readUnknownFields({ model: 'm', service_tier: 'auto', extra: undefined, container: { id: 'c' } }, new Set(['model']));
    expect(out).toEqual({ service_tier: 'auto', container: { id: 'c' } });
    expect(Object.keys(out)).toEqual(['service_tier', 'container']);
  });

  it('keeps a member named __proto__ as a member, and the copy a plain object', () => {
    const out = readUnknownFields(JSON.parse('{"model":"m","__proto__":{"polluted":true},"a":1}') as object, new Set(['model']));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("is what a Claude-style body's unmodelled fields travel in (a __proto__ one included, no longer the copy's prototype)", () => {
    const body = JSON.parse('{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"Hi"}],"service_tier":"auto","__proto__":{"x":1}}') as MessagesRequest;
    const { extra } = readAnthropicRequest(body, { stream: false }).source;
    expect(JSON.stringify(extra)).toBe('{"service_tier":"auto","__proto__":{"x":1}}');
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
  });
});
