import { describe, expect, it } from 'vitest';
import { readOpenAIError } from '../../../../core/upstreams/openai/read-error.ts';
import { errorView as summary, loadFixture } from '../../../helpers/streams.ts';

const read = (body: string, status: number, headers: Record<string, string> = {}) => readOpenAIError(new Response(body, { status, headers }), 'groq');

describe('readOpenAIError', () => {
  it('maps a Groq 429 with retry-after', async () => {
    const err = await read(loadFixture('openai/error-429.json'), 429, { 'retry-after': '3', 'content-type': 'application/json' });
    expect(summary(err)).toEqual({
      kind: 'rate_limit',
      status: 429,
      retryAfter: 3,
      code: 'rate_limit_exceeded',
      message:
        'Upstream groq: Rate limit reached for model `openai/gpt-oss-120b` in organization `org_01abc` service tier `on_demand` on tokens per minute (TPM): Limit 8000, Used 7950, Requested 420. Please try again in 2.7s.',
    });
  });

  it('prefers retry-after-ms and reads HTTP dates', async () => {
    expect((await read('{}', 429, { 'retry-after-ms': '1500', 'retry-after': '9' })).opts.retryAfter).toBe(2);
    const date = new Date(Date.now() + 30_000).toUTCString();
    const seconds = (await read('{}', 429, { 'retry-after': date })).opts.retryAfter!;
    expect(seconds).toBeGreaterThanOrEqual(28);
    expect(seconds).toBeLessThanOrEqual(30);
  });

  it('maps statuses to kinds and keeps the status', async () => {
    const cases: Array<[number, string]> = [
      [400, 'invalid_request'],
      [403, 'permission'],
      [404, 'not_found'],
      [413, 'request_too_large'],
      [422, 'invalid_request'],
      [500, 'upstream'],
      [502, 'upstream'],
      [503, 'overloaded'],
      [504, 'timeout'],
    ];
    for (const [status, kind] of cases) {
      const err = await read(JSON.stringify({ error: { message: 'boom', type: 'x' } }), status);
      expect([err.kind, err.status, err.message]).toEqual([kind, status, 'Upstream groq: boom']);
    }
  });

  it('does not echo the upstream message for a rejected key', async () => {
    const err = await read(JSON.stringify({ error: { message: 'Incorrect API key provided: sk-abc***wxyz', type: 'invalid_request_error', code: 'invalid_api_key' } }), 401);
    expect(summary(err)).toEqual({
      kind: 'authentication',
      status: 401,
      retryAfter: undefined,
      code: 'invalid_api_key',
      message: 'Upstream groq: authentication failed (check the provider apiKey in the gateway configuration)',
    });
    expect(err.message).not.toContain('sk-');
  });

  it('reads {message}, {detail}, plain text and empty bodies without throwing; truncates long text', async () => {
    expect((await read('{"object":"error","message":"model not loaded","code":404}', 404)).message).toBe('Upstream groq: model not loaded');
    expect((await read('{"detail":"Not Found"}', 404)).message).toBe('Upstream groq: Not Found');
    expect((await read('<html>Bad Gateway</html>', 502)).message).toBe('Upstream groq: <html>Bad Gateway</html>');
    expect((await read('', 503)).message).toBe('Upstream groq: HTTP 503');
    const long = await read('x'.repeat(2000), 500);
    expect(long.message).toBe(`Upstream groq: ${'x'.repeat(500)}…`);
  });
});
