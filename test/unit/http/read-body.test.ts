import { describe, expect, it, vi } from 'vitest';
import { isGatewayError } from '../../../core/errors.ts';
import { KEEP_OBJECT_BYTES } from '../../../core/http/json-body.ts';
import { parseJsonBody, readBody, readBodyBytes } from '../../../core/http/read-body.ts';

/** A request whose body is an endless series of 1 KiB chunks; counts what was pulled. */
function endlessRequest() {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled++;
      controller.enqueue(new Uint8Array(1024));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const request = new Request('http://gw.test/x', { method: 'POST', body, duplex: 'half' } as RequestInit);
  return { request, state };
}

describe('readBodyBytes', () => {
  it('refuses a body past the limit while reading it, and cancels the rest', async () => {
    const { request, state } = endlessRequest();
    const err = await readBodyBytes(request, 10 * 1024).catch((e: unknown) => e);
    expect(isGatewayError(err) && err.kind).toBe('request_too_large');
    expect(isGatewayError(err) && err.status).toBe(413);
    expect(state.pulled).toBeLessThanOrEqual(13);
    await new Promise((r) => setTimeout(r, 0));
    expect(state.cancelled).toBe(true);
  });

  it('refuses at once when content-length is already too large', async () => {
    const request = new Request('http://gw.test/x', { method: 'POST', body: 'x'.repeat(100), headers: { 'content-length': '100' } });
    await expect(readBodyBytes(request, 10)).rejects.toMatchObject({ kind: 'request_too_large' });
  });

  it('returns a body within the limit whole', async () => {
    const request = new Request('http://gw.test/x', { method: 'POST', body: 'hello' });
    expect(new TextDecoder().decode(await readBodyBytes(request, 5))).toBe('hello');
  });
});

describe('parseJsonBody', () => {
  it.each([
    ['{not json', 'Request body is not valid JSON'],
    ['[1,2]', 'Request body must be a JSON object'],
    ['', 'Request body is not valid JSON'],
  ])('refuses %j with a 400', async (body, message) => {
    const request = new Request('http://gw.test/x', { method: 'POST', body });
    expect(() => parseJsonBody(new Uint8Array(0), 1000)).toThrow();
    const read = await readBody(request, 1000);
    expect(() => parseJsonBody(read, 1000)).toThrow(expect.objectContaining({ kind: 'invalid_request', message }));
  });

  it('gives the bytes, their text and the object', async () => {
    const request = new Request('http://gw.test/x', { method: 'POST', body: '{"model":"m","n":1}', headers: { 'content-length': '19' } });
    const { bytes, text, object } = parseJsonBody(await readBody(request, 1000), 1000);
    expect([bytes.byteLength, text, object]).toEqual([19, '{"model":"m","n":1}', { model: 'm', n: 1 }]);
  });

  describe('a body past KEEP_OBJECT_BYTES (scanned, not parsed)', () => {
    const pad = 'naïve 🎉 '.repeat(Math.ceil(KEEP_OBJECT_BYTES / 8));
    const limit = 4 * KEEP_OBJECT_BYTES;

    it('gives the head, the exact bytes and, when asked, the same text and object a parse gives', () => {
      const text = `{"model":"m","stream":true,"max_tokens":5,"thinking":{"type":"enabled"},"messages":[{"role":"user","content":"${pad}"}]}`;
      const parse = vi.spyOn(JSON, 'parse');
      let body: ReturnType<typeof parseJsonBody>;
      let parsed: number[];
      try {
        body = parseJsonBody(new TextEncoder().encode(text), limit);
        parsed = parse.mock.calls.map(([arg]) => String(arg).length);
      } finally {
        parse.mockRestore();
      }
      // Only the head's values went through JSON.parse.
      expect(Math.max(...parsed)).toBeLessThan(30);
      expect(body.head).toEqual({ model: 'm', stream: true, max_tokens: 5, thinking: { type: 'enabled' } });
      expect(body.exactBytes).toEqual(new TextEncoder().encode(text));
      expect(body.text).toBe(text);
      expect(body.object).toEqual(JSON.parse(text));
    });

    it.each([
      [`{"model":"m","pad":"${'x'.repeat(KEEP_OBJECT_BYTES)}",}`, 'Request body is not valid JSON'],
      [`["${'x'.repeat(KEEP_OBJECT_BYTES)}"]`, 'Request body must be a JSON object'],
    ])('refuses what a parse refuses, with the parse’s 400 (%#)', (text, message) => {
      expect(() => parseJsonBody(new TextEncoder().encode(text), limit)).toThrow(expect.objectContaining({ kind: 'invalid_request', message }));
    });

    it('parses at once when asked to (a translating route will read the object)', () => {
      const text = `{"model":"m","messages":[{"role":"user","content":"${pad}"}]}`;
      const parse = vi.spyOn(JSON, 'parse');
      let longest: number;
      try {
        parseJsonBody(new TextEncoder().encode(text), limit, { parse: true });
        longest = Math.max(...parse.mock.calls.map(([arg]) => String(arg).length));
      } finally {
        parse.mockRestore();
      }
      expect(longest).toBe(text.length);
    });

    it('parses ill-formed UTF-8 as the decoder repairs it, and has no exact bytes then', () => {
      const bytes = Uint8Array.of(...new TextEncoder().encode(`{"model":"m","pad":"${pad}`), 0xff, ...new TextEncoder().encode('"}'));
      const body = parseJsonBody(bytes, limit);
      expect(body.head.model).toBe('m');
      expect(body.text.endsWith('\uFFFD"}')).toBe(true);
      expect(body.exactBytes).toBeUndefined();
    });
  });

  it('refuses bytes past the limit with a 413 (a declared length nothing held the body to)', () => {
    expect(() => parseJsonBody(new TextEncoder().encode('{"a":"0123456789"}'), 10)).toThrow(expect.objectContaining({ kind: 'request_too_large', status: 413 }));
  });
});
