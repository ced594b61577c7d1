import { describe, expect, it } from 'vitest';
import { readGeminiError } from '../../../../core/upstreams/gemini/read-error.ts';
import { errorView as view, loadFixture } from '../../../helpers/streams.ts';

const ctx = { provider: 'google', apiKey: 'AIzaSECRET123' };
const json = (body: unknown, status: number, headers: Record<string, string> = {}) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const rpc = (code: number, status: string, message = `${status} happened`) => json({ error: { code, message, status } }, code);

describe('readGeminiError', () => {
  it('maps every google.rpc status to a kind, keeping the status', async () => {
    const cases: Array<[number, string]> = [
      [400, 'INVALID_ARGUMENT'], [400, 'FAILED_PRECONDITION'], [401, 'UNAUTHENTICATED'], [403, 'PERMISSION_DENIED'], [404, 'NOT_FOUND'],
      [429, 'RESOURCE_EXHAUSTED'], [500, 'INTERNAL'], [503, 'UNAVAILABLE'], [504, 'DEADLINE_EXCEEDED'],
    ];
    const out = await Promise.all(cases.map(async ([code, status]) => view(await readGeminiError(rpc(code, status), ctx))));
    expect(out).toEqual([
      { kind: 'invalid_request', status: 400, message: 'INVALID_ARGUMENT happened', code: 'INVALID_ARGUMENT', retryAfter: undefined },
      { kind: 'invalid_request', status: 400, message: 'FAILED_PRECONDITION happened', code: 'FAILED_PRECONDITION', retryAfter: undefined },
      { kind: 'authentication', status: 401, message: 'Upstream "google" rejected the gateway\'s credentials', code: 'UNAUTHENTICATED', retryAfter: undefined },
      { kind: 'permission', status: 403, message: 'PERMISSION_DENIED happened', code: 'PERMISSION_DENIED', retryAfter: undefined },
      { kind: 'not_found', status: 404, message: 'NOT_FOUND happened', code: 'NOT_FOUND', retryAfter: undefined },
      { kind: 'rate_limit', status: 429, message: 'RESOURCE_EXHAUSTED happened', code: 'RESOURCE_EXHAUSTED', retryAfter: undefined },
      { kind: 'upstream', status: 500, message: 'INTERNAL happened', code: 'INTERNAL', retryAfter: undefined },
      { kind: 'overloaded', status: 503, message: 'UNAVAILABLE happened', code: 'UNAVAILABLE', retryAfter: undefined },
      { kind: 'timeout', status: 504, message: 'DEADLINE_EXCEEDED happened', code: 'DEADLINE_EXCEEDED', retryAfter: undefined },
    ]);
  });

  it('reads retryAfter from RetryInfo on a 429', async () => {
    expect(view(await readGeminiError(json(loadFixture('gemini/upstream-error-429.json'), 429), ctx))).toEqual({
      kind: 'rate_limit',
      status: 429,
      message: 'You exceeded your current quota, please check your plan and billing details.',
      code: 'RESOURCE_EXHAUSTED',
      retryAfter: 7,
    });
  });

  it('falls back to the retry-after header', async () => {
    expect(view(await readGeminiError(json({ error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } }, 429, { 'retry-after': '12' }), ctx)).retryAfter).toBe(12);
  });

  it('treats API_KEY_INVALID as the gateway credential failing, without echoing anything', async () => {
    expect(view(await readGeminiError(json(loadFixture('gemini/upstream-error-api-key.json'), 400), ctx))).toEqual({
      kind: 'authentication',
      status: 401,
      message: 'Upstream "google" rejected the gateway\'s credentials',
      code: 'INVALID_ARGUMENT',
      retryAfter: undefined,
    });
  });

  it('scrubs the API key from messages that quote it', async () => {
    const res = rpc(403, 'PERMISSION_DENIED', "Permission denied: Consumer 'api_key:AIzaSECRET123' has been suspended.");
    expect((await readGeminiError(res, ctx)).message).toBe("Permission denied: Consumer 'api_key:[redacted]' has been suspended.");
  });

  it('reads the array-wrapped error of the JSON-array stream', async () => {
    const res = json([{ error: { code: 400, message: 'bad field', status: 'INVALID_ARGUMENT' } }], 400);
    expect(view(await readGeminiError(res, ctx))).toEqual({ kind: 'invalid_request', status: 400, message: 'bad field', code: 'INVALID_ARGUMENT', retryAfter: undefined });
  });

  it('classifies non-JSON bodies by HTTP status and never echoes them', async () => {
    const html = (status: number) => new Response('<html>Bad Gateway AIzaSECRET123</html>', { status, headers: { 'content-type': 'text/html' } });
    const out = await Promise.all([502, 503, 413, 418].map(async (s) => view(await readGeminiError(html(s), ctx))));
    expect(out).toEqual([
      { kind: 'upstream', status: 502, message: 'Upstream "google" answered HTTP 502', code: undefined, retryAfter: undefined },
      { kind: 'overloaded', status: 503, message: 'Upstream "google" answered HTTP 503', code: undefined, retryAfter: undefined },
      { kind: 'request_too_large', status: 413, message: 'Upstream "google" answered HTTP 413', code: undefined, retryAfter: undefined },
      { kind: 'invalid_request', status: 418, message: 'Upstream "google" answered HTTP 418', code: undefined, retryAfter: undefined },
    ]);
  });
});
