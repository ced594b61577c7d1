import { describe, expect, it } from 'vitest';
import { JsonBody, KEEP_OBJECT_BYTES } from '../../../core/http/json-body.ts';
import { scanJsonObject } from '../../../core/http/json-scan.ts';

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

  it('lets a large body’s object go, keeps its top-level members other than arrays, and parses it again once when asked', () => {
    const value = { model: 'm', stream: true, max_tokens: 5, stop: null, system: 'x'.repeat(KEEP_OBJECT_BYTES), messages: [{ role: 'user', content: 'hi' }], metadata: { a: 1 } };
    const body = bodyOf(value);
    const before = body.object;
    body.release();
    expect(body.head).toEqual({ model: 'm', stream: true, max_tokens: 5, stop: null, system: value.system, metadata: { a: 1 } });
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

  describe('scanned (a large body)', () => {
    const pad = 'x'.repeat(KEEP_OBJECT_BYTES);
    const scanned = (text: string, marker = '') => {
      const bytes = new TextEncoder().encode(text);
      return JsonBody.fromScan(bytes, scanJsonObject(bytes, marker)!, marker);
    };

    it('has a head like a parse’s: arrays left out, the last of a repeated key winning', () => {
      const body = scanned(`{"model":"a","tools":[],"model":"b","stream":false,"meta":{"k":[1]},"x":1,"x":[2],"__proto__":{"p":1},"pad":"${pad}"}`);
      expect(body.head).toEqual({ model: 'b', stream: false, meta: { k: [1] }, pad });
      expect(Object.getPrototypeOf(body.head)).toBe(Object.prototype);
    });

    it('splices a member into the bytes (after a byte-order mark, without it), and gives up on a repeated or missing key', () => {
      const text = `{"model":"alias","s":"café","pad":"${pad}"}`;
      const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text));
      const body = JsonBody.fromScan(bytes, scanJsonObject(bytes)!, '');
      const decode = (out: unknown) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(out as Uint8Array);
      expect(decode(body.spliceMember('model', '"real"'))).toBe(text.replace('"alias"', '"real"'));
      expect(decode(body.exactBytes)).toBe(text);
      expect(body.spliceMember('missing', '1')).toBeUndefined();
      expect(scanned(`{"model":"a","pad":"${pad}","model":"b"}`).spliceMember('model', '"real"')).toBeUndefined();
    });

    it('sends its bytes as they are, without a copy, when the new value is the one they hold', () => {
      const bytes = new TextEncoder().encode(`{"model":"claude-opus-4-6","pad":"${pad}"}`);
      const out = JsonBody.fromScan(bytes, scanJsonObject(bytes)!, '').spliceMember('model', '"claude-opus-4-6"') as Uint8Array;
      expect(out.buffer).toBe(bytes.buffer);
      expect(out.byteLength).toBe(bytes.byteLength);
    });

    it('answers whether a string may start with its marker from the scan, and any other prefix from the text', () => {
      const marked = scanned(`{"m":[{"signature":"sy1.openai.x"}],"pad":"${pad}"}`, 'sy1.');
      expect(marked.mayHoldString('sy1.')).toBe(true);
      expect(marked.mayHoldString('zz.')).toBe(false);
      expect(marked.mayHoldString('openai')).toBe(false);
      expect(scanned(`{"m":"sy1.x","pad":"${pad}"}`, '').mayHoldString('sy1.')).toBe(true);
      expect(scanned(`{"m":"x sy1.","pad":"${pad}"}`, 'sy1.').mayHoldString('sy1.')).toBe(false);
    });

    it('makes its text and object only when asked, and again after a release', () => {
      const text = `{"model":"m","messages":[{"role":"user","content":"${pad}"}]}`;
      const body = scanned(text);
      const object = body.object;
      expect(object).toEqual(JSON.parse(text));
      expect(body.object).toBe(object);
      body.release();
      expect(body.object).not.toBe(object);
      expect(body.object).toEqual(object);
      expect(body.head).toEqual({ model: 'm' });
    });
  });

  it('splices a short ASCII body as text, and a longer or non-ASCII one into its bytes, each exactly', () => {
    const short = bodyOf({ model: 'alias', messages: [{ role: 'user', content: 'hi' }] });
    expect(short.spliceMember('model', '"real"')).toBe(short.text.replace('"alias"', '"real"'));
    const accented = bodyOf({ model: 'alias', messages: [{ role: 'user', content: 'café' }] });
    const intoBytes = accented.spliceMember('model', '"real"');
    expect(intoBytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(intoBytes as Uint8Array)).toBe(accented.text.replace('"alias"', '"real"'));
    const long = bodyOf({ model: 'alias', messages: [{ role: 'user', content: 'x'.repeat(9000) }] });
    const longOut = long.spliceMember('model', '"real"');
    expect(longOut).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(longOut as Uint8Array)).toBe(long.text.replace('"alias"', '"real"'));
  });

  it('once dropped, keeps its head and refuses to be read (a bug, not a client error)', () => {
    const body = bodyOf({ model: 'm', messages: [] });
    body.drop();
    expect(body.head.model).toBe('m');
    for (const read of [() => body.bytes, () => body.text, () => body.object, () => body.exactBytes]) {
      expect(read).toThrow(expect.objectContaining({ kind: 'internal' }));
    }
    body.release();
  });
});
