import { Router, type IRequestStrict } from 'itty-router';
import { type Reply, replyToResponse } from '../../../core/http/reply.ts';
import { describe, expect, it } from 'vitest';
import { createKeyStore } from '../../../core/accounting/key-store.ts';
import { createMemoryKeyBackend } from '../../../core/accounting/memory-key-backend.ts';
import { createMemoryUsageStore } from '../../../core/accounting/memory-usage-store.ts';
import { registerAdminRoutes, type AdminDeps } from '../../../core/admin/routes.ts';
import { createCatalog } from '../../../core/catalog.ts';
import { readConfig } from '../../../core/config.ts';
import type { RequestContext } from '../../../core/context.ts';
import { toGatewayError } from '../../../core/errors.ts';
import { sha256Hex } from '../../../core/http/sha256.ts';

const TOKEN = 'admin-token-0123456789';
const NOW = Date.parse('2026-03-01T00:00:00Z');
const config = readConfig({
  prefix: 'acme',
  providers: { p: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } },
  models: [
    { id: 'm1', routes: [{ provider: 'p', model: 'x' }] },
    { id: 'm2', aliases: ['m2-alias'], routes: [{ provider: 'p', model: 'y' }] },
  ],
});

function setup(admin: AdminDeps['admin'] | null = { token: TOKEN }) {
  const keys = createKeyStore(createMemoryKeyBackend(), { clock: { now: () => NOW } });
  const usage = createMemoryUsageStore();
  const router = Router<IRequestStrict, [RequestContext]>();
  registerAdminRoutes(router, '/llm/admin/v1', { keys, usage, admin: admin ?? undefined, rotateGraceSeconds: 3600, now: () => NOW });
  async function call(method: string, path: string, options: { token?: string | null; body?: unknown; header?: string } = {}) {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? TOKEN : options.token;
    if (token !== null) headers[options.header ?? 'authorization'] = options.header ? token : `Bearer ${token}`;
    const init: RequestInit = { method, headers };
    if (options.body !== undefined) init.body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const request = new Request(`http://gw.test${path}`, init);
    const ctx = { services: { config, catalog: createCatalog(config, 0) }, id: 'req_1', url: new URL(request.url), path: new URL(request.url).pathname, query: new URL(request.url).searchParams, family: 'openai', signal: request.signal } as unknown as RequestContext;
    try {
      const reply = (await router.fetch(request as never, ctx)) as Reply | undefined;
      if (!reply) return { status: 404, body: null };
      const response = replyToResponse(reply);
      return { status: response.status, body: await response.json() };
    } catch (err) {
      const e = toGatewayError(err);
      return { status: e.status, body: { error: e.message } };
    }
  }
  return { keys, usage, call };
}

describe('admin API', () => {
  it('needs the admin token and never accepts a user key', async () => {
    const { call, keys } = setup();
    const { secret } = await keys.create({ name: 'user' });
    expect((await call('GET', '/llm/admin/v1/keys', { token: null })).status).toBe(401);
    expect((await call('GET', '/llm/admin/v1/keys', { token: secret })).status).toBe(401);
    expect((await call('GET', '/llm/admin/v1/keys', { token: `${TOKEN}x` })).status).toBe(401);
    expect((await call('GET', '/llm/admin/v1/keys', { header: 'x-api-key' })).status).toBe(200);
  });

  it('accepts a token configured only by its sha256', async () => {
    const { call } = setup({ sha256: (await sha256Hex(TOKEN)).toUpperCase() });
    expect((await call('GET', '/llm/admin/v1/keys')).status).toBe(200);
  });

  it('answers 404 when no admin credential is configured', async () => {
    const { call } = setup(null);
    expect((await call('GET', '/llm/admin/v1/keys')).status).toBe(404);
  });

  it('creates, lists, shows, rotates and revokes keys', async () => {
    const { call, keys } = setup();
    const created = await call('POST', '/llm/admin/v1/keys', { body: { name: 'team a', models: ['acme.m1', 'models/m2-alias'], rpm: 60, tpm: 100000, budgetUsd: 25, expiresIn: '30d' } });
    expect(created.status).toBe(201);
    const { key, secret } = created.body as { key: { id: string }; secret: string };
    expect(key).toEqual({
      id: key.id, name: 'team a', prefix: secret.slice(0, 10), status: 'active', createdAt: '2026-03-01T00:00:00.000Z',
      expiresAt: '2026-03-31T00:00:00.000Z', models: ['m1', 'm2'], rpm: 60, tpm: 100000, budgetUsd: 25,
    });
    expect((await keys.verify(secret))?.id).toBe(key.id);

    expect((await call('GET', '/llm/admin/v1/keys')).body).toEqual({ data: [key] });
    expect((await call('GET', `/llm/admin/v1/keys/${key.id}`)).body).toEqual({ key, usage: null });
    expect((await call('GET', '/llm/admin/v1/keys/key_nope')).status).toBe(404);

    const rotated = await call('POST', `/llm/admin/v1/keys/${key.id}/rotate`, { body: { graceSeconds: 0 } });
    expect(rotated.status).toBe(200);
    const next = rotated.body as { secret: string; key: { prefix: string }; previousSecretValidUntil: string };
    expect(next.key.prefix).toBe(next.secret.slice(0, 10));
    expect(next.previousSecretValidUntil).toBe('2026-03-01T00:00:00.000Z');
    expect(await keys.verify(secret)).toBeUndefined();
    expect((await keys.verify(next.secret))?.id).toBe(key.id);

    const revoked = await call('DELETE', `/llm/admin/v1/keys/${key.id}`);
    expect(revoked.body).toEqual({ key: { ...key, prefix: next.key.prefix, status: 'revoked', revokedAt: '2026-03-01T00:00:00.000Z' } });
    expect(await keys.verify(next.secret)).toBeUndefined();
    expect((await call('POST', `/llm/admin/v1/keys/${key.id}/rotate`)).status).toBe(400);
  });

  it('rotation without a body uses the configured grace period', async () => {
    const { call } = setup();
    const { key } = (await call('POST', '/llm/admin/v1/keys', { body: { name: 'x' } })).body as { key: { id: string } };
    const rotated = await call('POST', `/llm/admin/v1/keys/${key.id}/rotate`);
    expect((rotated.body as { previousSecretValidUntil: string }).previousSecretValidUntil).toBe('2026-03-01T01:00:00.000Z');
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x', rpm: 0 }, 'rpm'],
    [{ name: 'x', models: ['nope'] }, 'models.0'],
    [{ name: 'x', expiresAt: 'soon' }, 'expiresAt'],
    [{ name: 'x', expiresIn: '3 weeks' }, 'expiresIn'],
    [{ name: 'x', colour: 'red' }, 'colour'],
  ])('refuses %j naming the field', async (body, field) => {
    const { call } = setup();
    const res = await call('POST', '/llm/admin/v1/keys', { body });
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toContain(field);
  });

  it('summarizes usage by key, model and day within a range', async () => {
    const { call, usage } = setup();
    const rec = (keyId: string, model: string, day: string, cost: number, status = 200) => ({
      requestId: `${keyId}${model}${day}`, time: Date.parse(`${day}T12:00:00Z`), keyId, family: 'openai', model, status,
      inputTokens: 10, outputTokens: 5, cacheReadTokens: 1, cacheWriteTokens: 0, costNanoUsd: cost, latencyMs: 1, aborted: false,
    });
    await usage.appendBatch([rec('a', 'm1', '2026-02-01', 1e9), rec('a', 'm2', '2026-02-02', 5e8, 500), rec('b', 'm1', '2026-02-02', 25e7), rec('b', 'm1', '2026-02-03', 1)]);
    const byModel = await call('GET', '/llm/admin/v1/usage?by=model&from=2026-02-01&to=2026-02-03');
    expect(byModel.body).toEqual({
      by: 'model', from: '2026-02-01T00:00:00.000Z', to: '2026-02-03T00:00:00.000Z', keyId: null,
      data: [
        { group: 'm1', requests: 2, errors: 0, inputTokens: 20, outputTokens: 10, cacheReadTokens: 2, cacheWriteTokens: 0, costUsd: 1.25 },
        { group: 'm2', requests: 1, errors: 1, inputTokens: 10, outputTokens: 5, cacheReadTokens: 1, cacheWriteTokens: 0, costUsd: 0.5 },
      ],
    });
    const byDay = await call('GET', '/llm/admin/v1/usage?by=day&keyId=b');
    expect((byDay.body as { data: Array<{ group: string }> }).data.map((r) => r.group)).toEqual(['2026-02-02', '2026-02-03']);
    expect((await call('GET', '/llm/admin/v1/usage?by=week')).status).toBe(400);
    expect((await call('GET', '/llm/admin/v1/usage?from=yesterday')).status).toBe(400);
  });
});
