import { describe, expect, it } from 'vitest';
import { createKeyStore } from '../../../core/accounting/key-store.ts';
import { createMemoryKeyBackend } from '../../../core/accounting/memory-key-backend.ts';
import { createMemoryUsageStore } from '../../../core/accounting/memory-usage-store.ts';
import { ConfigError, createGateway, type AccessLogEntry, type GatewayConfigInput } from '../../../core/index.ts';

const KEY = 'sk-unit-test-key';
const APP = 'https://chat.example';
const config: GatewayConfigInput = {
  basePath: '/llm',
  keys: [{ id: 'web', key: KEY }],
  providers: { oss: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } },
  models: [{ id: 'gpt-oss-120b', created: 1, routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] }],
};

function gatewayWith(cors?: GatewayConfigInput['cors'], logs: AccessLogEntry[] = []) {
  const admin = { keys: createKeyStore(createMemoryKeyBackend()), usage: createMemoryUsageStore(), admin: { token: 'admin-token-0123456789' } };
  return createGateway({ ...config, ...(cors && { cors }) }, { log: (e) => logs.push(e), admin });
}

/** What a browser sends before a cross-origin call with the Anthropic SDK's headers. */
function preflight(path: string, origin = APP, method = 'POST'): Request {
  return new Request(`http://gw.test${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'anthropic-dangerous-direct-browser-access,anthropic-version,authorization,content-type,x-stainless-os',
    },
  });
}

const FAMILY_PATHS = ['/llm/api/openai/v1/models', '/llm/api/anthropic/v1/messages', '/llm/api/gemini/v1beta/models/gpt-oss-120b:streamGenerateContent', '/llm/healthz'];

describe('CORS, on by default for any origin (as the providers answer browsers)', () => {
  it.each(FAMILY_PATHS)('answers a preflight on %s with 204, before any key check', async (path) => {
    const logs: AccessLogEntry[] = [];
    const res = await gatewayWith(undefined, logs).fetch(preflight(path));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'anthropic-dangerous-direct-browser-access,anthropic-version,authorization,content-type,x-stainless-os',
      'access-control-max-age': '86400',
      vary: 'access-control-request-headers',
    });
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(logs).toMatchObject([{ method: 'OPTIONS', path, status: 204 }]);
  });

  it('lets the page read answers, errors included, and every header', async () => {
    const gw = gatewayWith();
    const ok = await gw.fetch(new Request('http://gw.test/llm/api/openai/v1/models', { headers: { origin: APP, authorization: `Bearer ${KEY}` } }));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toBe('*');
    expect(ok.headers.get('vary')).toBeNull();
    const denied = await gw.fetch(new Request('http://gw.test/llm/api/anthropic/v1/messages', { method: 'POST', headers: { origin: APP, 'x-api-key': 'sk-wrong-key-123' }, body: '{}' }));
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
    expect(await denied.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('adds nothing to a call without an origin (servers, agents, curl)', async () => {
    const res = await gatewayWith().fetch(new Request('http://gw.test/llm/api/openai/v1/models', { headers: { authorization: `Bearer ${KEY}` } }));
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('keeps OPTIONS that is not a preflight a 405, and an unknown path a 404', async () => {
    const gw = gatewayWith();
    const plain = await gw.fetch(new Request('http://gw.test/llm/api/openai/v1/models', { method: 'OPTIONS' }));
    expect(plain.status).toBe(405);
    const unknown = await gw.fetch(new Request('http://gw.test/llm/nowhere', { headers: { origin: APP } }));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('gives the admin API to no browser: no preflight, no CORS headers', async () => {
    const gw = gatewayWith();
    const pre = await gw.fetch(preflight('/llm/admin/v1/keys'));
    expect(pre.status).toBe(405);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const list = await gw.fetch(new Request('http://gw.test/llm/admin/v1/keys', { headers: { origin: APP, authorization: 'Bearer admin-token-0123456789' } }));
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS limited to listed origins', () => {
  const gw = gatewayWith({ origins: [APP, 'http://localhost:5173'] });

  it('echoes a listed origin (any case) and varies on it', async () => {
    const pre = await gw.fetch(preflight('/llm/api/anthropic/v1/messages', 'HTTP://localhost:5173'));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('HTTP://localhost:5173');
    expect(pre.headers.get('vary')).toBe('origin, access-control-request-headers');
    const res = await gw.fetch(new Request('http://gw.test/llm/api/openai/v1/models', { headers: { origin: APP, authorization: `Bearer ${KEY}` } }));
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('vary')).toBe('origin');
  });

  it('refuses another origin: a 403 preflight naming it, and answers the page cannot read', async () => {
    const pre = await gw.fetch(preflight('/llm/api/anthropic/v1/messages', 'https://evil.example'));
    expect(pre.status).toBe(403);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('vary')).toBe('origin');
    expect(await pre.json()).toMatchObject({ type: 'error', error: { type: 'permission_error', message: "Origin https://evil.example is not allowed by the gateway's cors.origins" } });
    const res = await gw.fetch(new Request('http://gw.test/llm/api/openai/v1/models', { headers: { origin: 'https://evil.example', authorization: `Bearer ${KEY}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS off', () => {
  it('answers no preflight and adds no header when cors.origins is empty', async () => {
    const gw = gatewayWith({ origins: [] });
    expect((await gw.fetch(preflight('/llm/api/anthropic/v1/messages'))).status).toBe(405);
    const res = await gw.fetch(new Request('http://gw.test/llm/api/openai/v1/models', { headers: { origin: APP, authorization: `Bearer ${KEY}` } }));
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses an origin with a path at start-up, naming the field', () => {
    expect(() => gatewayWith({ origins: ['https://chat.example/'] })).toThrow(ConfigError);
    expect(() => gatewayWith({ origins: ['https://chat.example/'] })).toThrow(/cors\.origins\.0: must be "\*" or an origin/);
  });
});
