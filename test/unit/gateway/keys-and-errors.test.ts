import { describe, expect, it } from 'vitest';
import { createGateway, sha256Hex, type AccessLogEntry, type GatewayConfigInput } from '../../../core/index.ts';
import { authenticate, createStaticKeyVerifier } from '../../../core/keys.ts';

const KEY = 'sk-unit-test-key';
const baseConfig: GatewayConfigInput = {
  prefix: 'acme',
  owner: 'acme',
  keys: [{ id: 'plain', key: KEY }],
  providers: { oss: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } },
  models: [
    { id: 'gpt-oss-120b', created: 1, routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
    { id: 'gpt-oss-20b', created: 2, routes: [{ provider: 'oss', model: 'openai/gpt-oss-20b' }] },
  ],
};

function gatewayWith(config: Partial<GatewayConfigInput> = {}, logs: AccessLogEntry[] = [], errors: unknown[] = []) {
  return createGateway({ ...baseConfig, ...config }, { log: (e) => logs.push(e), logError: (_id, e) => errors.push(e) });
}
const get = (path: string, headers: Record<string, string> = {}) => new Request(`http://gw.test${path}`, { headers });

describe('keys', () => {
  it.each([
    ['Authorization: Bearer', { authorization: `Bearer ${KEY}` }, ''],
    ['x-api-key', { 'x-api-key': KEY }, ''],
    ['x-goog-api-key', { 'x-goog-api-key': KEY }, ''],
    ['?key=', {}, `?key=${KEY}`],
  ])('accepts the key from %s', async (_where, headers, query) => {
    const res = await gatewayWith().fetch(get(`/api/openai/v1/models${query}`, headers));
    expect(res.status).toBe(200);
  });

  it('accepts a key configured only by its sha256', async () => {
    const gw = gatewayWith({ keys: [{ id: 'hashed', sha256: await sha256Hex('sk-only-hash-known') }] });
    expect((await gw.fetch(get('/api/openai/v1/models', { 'x-api-key': 'sk-only-hash-known' }))).status).toBe(200);
    expect((await gw.fetch(get('/api/openai/v1/models', { 'x-api-key': KEY }))).status).toBe(401);
  });

  it.each([
    ['/api/openai/v1/models', { error: { message: 'Invalid API key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }],
    ['/api/anthropic/v1/models', { type: 'error', error: { type: 'authentication_error', message: 'Invalid API key' }, request_id: expect.stringMatching(/^req_/) }],
    ['/api/gemini/v1beta/models', { error: { code: 401, message: 'Invalid API key', status: 'UNAUTHENTICATED' } }],
  ])('a wrong key on %s is a 401 in that family\'s envelope', async (path, body) => {
    const res = await gatewayWith().fetch(get(path, { authorization: 'Bearer sk-wrong-key' }));
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual(body);
  });

  it('a missing key says where to put one', async () => {
    const res = await gatewayWith().fetch(get('/api/openai/v1/models'));
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toContain('x-api-key');
  });

  it('healthz needs no key', async () => {
    const res = await gatewayWith().fetch(get('/healthz'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('a key limited to some models lists only those, and 404s the others', async () => {
    const gw = gatewayWith({ keys: [{ id: 'narrow', key: KEY, models: ['gpt-oss-20b'] }] });
    const list = await (await gw.fetch(get('/api/openai/v1/models', { 'x-api-key': KEY }))).json();
    expect(list.data.map((m: { id: string }) => m.id)).toEqual(['gpt-oss-20b']);
    expect((await gw.fetch(get('/api/openai/v1/models/gpt-oss-120b', { 'x-api-key': KEY }))).status).toBe(404);
  });
});

describe('errors', () => {
  it.each([
    ['/api/openai/v1/nothing', 'openai'],
    ['/api/anthropic/v1/nothing', 'anthropic'],
    ['/api/gemini/v1beta/nothing', 'gemini'],
    ['/elsewhere/v1beta/models/x', 'gemini'],
    ['/elsewhere/v1/messages', 'anthropic'],
    ['/', 'openai'],
  ])('an unknown route %s is a 404 in the %s envelope', async (path, family) => {
    const res = await gatewayWith().fetch(get(path, { 'x-api-key': KEY }));
    expect(res.status).toBe(404);
    const body = await res.json();
    if (family === 'openai') expect(body.error).toMatchObject({ type: 'invalid_request_error', code: null });
    if (family === 'anthropic') expect(body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    if (family === 'gemini') expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('a known path with the wrong method is a 405', async () => {
    const res = await gatewayWith().fetch(new Request('http://gw.test/api/openai/v1/models', { method: 'DELETE', headers: { 'x-api-key': KEY } }));
    expect(res.status).toBe(405);
    expect((await res.json()).error.message).toContain('DELETE');
  });

  it('an unexpected failure is a generic 500; the cause goes to the error log only', async () => {
    const errors: unknown[] = [];
    const gw = createGateway(baseConfig, {
      log: () => {},
      logError: (_id, e) => errors.push(e),
      keys: { verify: async () => { throw new Error('connection to db://admin:hunter2@db failed'); } },
    });
    const res = await gw.fetch(get('/api/openai/v1/models', { 'x-api-key': KEY }));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toEqual({ error: { message: 'Internal error', type: 'server_error', param: null, code: null } });
    expect(String(errors[0])).toContain('hunter2');
  });

  it('every response carries a request id, and one log line per request names it', async () => {
    const logs: AccessLogEntry[] = [];
    const gw = gatewayWith({}, logs);
    const ok = await gw.fetch(get('/api/openai/v1/models/gpt-oss-20b', { 'x-api-key': KEY }));
    const bad = await gw.fetch(get('/api/openai/v1/models'));
    for (const res of [ok, bad]) {
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]+$/);
      expect(res.headers.get('request-id')).toBe(res.headers.get('x-request-id'));
    }
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatchObject({ id: ok.headers.get('x-request-id'), method: 'GET', path: '/api/openai/v1/models/gpt-oss-20b', status: 200, key: 'plain', model: 'gpt-oss-20b' });
    expect(logs[1]).toMatchObject({ status: 401, key: undefined });
    expect(typeof logs[0]!.ms).toBe('number');
    expect(JSON.stringify(logs)).not.toContain(KEY);
  });

  it('a request whose URL cannot be parsed (a broken Host header) is a 400, not a crash', async () => {
    const broken = { method: 'GET', url: 'http://exa mple/api/openai/v1/models', headers: new Headers(), body: null, signal: new AbortController().signal };
    const res = await gatewayWith().fetch(broken as unknown as Request);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', message: 'Request URL is not valid' });
  });

  it('custom segments move every family', async () => {
    const gw = gatewayWith({ segments: { list: 'models-api', generate: 'gen', messages: 'msg' } });
    expect((await gw.fetch(get('/api/models-api/v1/models', { 'x-api-key': KEY }))).status).toBe(200);
    expect((await gw.fetch(get('/api/openai/v1/models', { 'x-api-key': KEY }))).status).toBe(404);
  });
});

describe('static keys on the per-request path', () => {
  it('a key seen before is verified and authenticated without a promise; a wrong one is still refused', async () => {
    const verifier = await createStaticKeyVerifier([{ id: 'me', key: 'sk-static-sync-0123456789' }]);
    const request = (key: string) => new Request('http://gw.test/v1/messages', { headers: { 'x-api-key': key } });
    const url = { query: new URLSearchParams() };
    const first = authenticate(verifier, request('sk-static-sync-0123456789'), url);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).id).toBe('me');
    const again = authenticate(verifier, request('sk-static-sync-0123456789'), url);
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as { id: string }).id).toBe('me');
    await expect(Promise.resolve().then(() => authenticate(verifier, request('sk-wrong'), url))).rejects.toThrow('Invalid API key');
    expect(() => authenticate(verifier, new Request('http://gw.test/v1/messages'), url)).toThrow('Missing API key');
  });
});
