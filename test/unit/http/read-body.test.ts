import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../core/errors.ts';
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

  it('refuses bytes past the limit with a 413 (a declared length nothing held the body to)', () => {
    expect(() => parseJsonBody(new TextEncoder().encode('{"a":"0123456789"}'), 10)).toThrow(expect.objectContaining({ kind: 'request_too_large', status: 413 }));
  });
});
