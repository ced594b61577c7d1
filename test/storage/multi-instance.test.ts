import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { anthropicMessage, replyWithUsage } from './fixtures/replies.ts';
import { spawnServer, stopServer } from './fixtures/spawn-server.ts';

/**
 * Two real server processes (`node --import tsx adapters/node.ts --config …`) sharing one
 * PostgreSQL schema and one Redis prefix, in front of a fake upstream: every request below goes
 * through the Claude-style route, the real admission, the real passthrough or translation and
 * the real settlement.
 */
const PG_URL = process.env.SWITCHYARD_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.SWITCHYARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const run = `sy_multi_${process.pid}_${Date.now().toString(36)}`;
const ADMIN = 'multi-instance-admin-token';
// USD per million tokens, integers so that every cost is an exact number of nano-USD.
const PRICES = { 'claude-x': { input: 3, output: 15 }, 'gpt-x': { input: 1, output: 4 } };

const dir = mkdtempSync(join(tmpdir(), 'sy-multi-'));
const configPath = join(dir, 'switchyard.json');
const children: ChildProcess[] = [];
let A = '';
let B = '';
let fake: FakeUpstream;

/** The usage every call of the RPM and revocation tests gets. */
const PLAIN = { input_tokens: 12, output_tokens: 3 };

beforeAll(async () => {
  fake = await startFakeUpstream(replyWithUsage(PLAIN, { prompt_tokens: 1, completion_tokens: 1 }));
  writeFileSync(
    configPath,
    JSON.stringify({
      prefix: 'acme',
      providers: {
        claude: { type: 'anthropic', baseUrl: fake.url, apiKey: 'upstream-secret' },
        oai: { type: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'upstream-secret' },
      },
      models: [
        { id: 'claude-x', routes: [{ provider: 'claude', model: 'up-claude' }] },
        { id: 'gpt-x', routes: [{ provider: 'oai', model: 'up-gpt' }] },
      ],
      storage: { kind: 'postgres', url: PG_URL, schema: run, maxConnections: 4 },
      redis: { url: REDIS_URL, prefix: `${run}:` },
      admin: { token: ADMIN },
      prices: PRICES,
      // Far longer than any wait below: a revocation seen in time came through Redis.
      keyCacheTtlMs: 60_000,
      // Nothing is written before shutdown: the final records prove SIGTERM flushes.
      usageBatch: { maxRecords: 10_000, flushMs: 600_000 },
    }),
  );
  const started = await Promise.allSettled([0, 1].map(() => spawnServer(['--config', configPath], { env: process.env })));
  for (const s of started) if (s.status === 'fulfilled') children.push(s.value.child);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  [A, B] = started.map((s) => (s as PromiseFulfilledResult<{ url: string }>).value.url) as [string, string];
}, 30_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await fake?.close();
  const sql = postgres(PG_URL, { onnotice: () => {} });
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${run}" CASCADE`);
  await sql.end();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${run}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

async function createKey(base: string, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${base}/admin/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  const { key, secret } = (await res.json()) as { key: { id: string }; secret: string };
  return { id: key.id, secret };
}

const messages = (base: string, secret: string, body: string | Record<string, unknown>) =>
  fetch(`${base}/api/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const hello = (model = 'claude-x', extra: Record<string, unknown> = {}) => ({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], ...extra });

/** What the test expects in sy_usage, per key id, in any order. */
const expected = new Map<string, Array<Record<string, unknown>>>();
const expect200 = (keyId: string, model: 'claude-x' | 'gpt-x', input: number, output: number, cacheRead = 0, cacheWrite = 0) => {
  const price = PRICES[model];
  const row = {
    key_id: keyId,
    family: 'anthropic',
    model,
    provider: model === 'claude-x' ? 'claude' : 'oai',
    upstream_model: model === 'claude-x' ? 'up-claude' : 'up-gpt',
    status: 200,
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    cost_nano_usd: (input + cacheRead + cacheWrite) * price.input * 1000 + output * price.output * 1000,
    aborted: 0,
  };
  expected.set(keyId, [...(expected.get(keyId) ?? []), row]);
};

describe('two real gateway processes sharing PostgreSQL and Redis', () => {
  it('an admin-created key with rpm 5 gets exactly 5 calls across both instances, then 429 with retry-after', async () => {
    const { id, secret } = await createKey(A, { name: 'rpm', rpm: 5 });
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 7; i++) {
      const res = await messages(i % 2 ? B : A, secret, hello());
      statuses.push(res.status);
      if (res.status === 200) {
        expect(((await res.json()) as { usage: unknown }).usage).toMatchObject(PLAIN);
        expect200(id, 'claude-x', 12, 3);
      } else refused ??= res;
    }
    // Per-instance limits would have let 3 + 3 through before refusing; the 7th hit B again.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused!.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit reached: this API key allows 5 requests per minute' }, request_id: expect.stringMatching(/^req_/) });
  });

  it('a key revoked on A is refused on B within a second (Redis event; the cache TTL is 60 s)', async () => {
    const { id, secret } = await createKey(A, { name: 'revoke-me' });
    // Both instances now hold the key in their verification cache.
    expect([(await messages(A, secret, hello())).status, (await messages(B, secret, hello())).status]).toEqual([200, 200]);
    expect200(id, 'claude-x', 12, 3);
    expect200(id, 'claude-x', 12, 3);
    const revoked = await fetch(`${A}/admin/v1/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(revoked.status).toBe(200);
    const started = performance.now();
    let res: Response;
    while ((res = await messages(B, secret, hello())).status === 200) {
      expect200(id, 'claude-x', 12, 3);
      expect(performance.now() - started).toBeLessThan(1000);
      await sleep(2);
    }
    const latencyMs = performance.now() - started;
    console.info(`revocation on A refused on B after ${latencyMs.toFixed(1)} ms`);
    expect(latencyMs).toBeLessThan(1000);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'Invalid API key' }, request_id: expect.stringMatching(/^req_/) });
    expect((await messages(A, secret, hello())).status).toBe(401);
  });

  it('50 concurrent calls over both instances do not overrun a budget', async () => {
    const { id, secret } = await createKey(B, { name: 'budget', budgetUsd: 0.1 });
    const body = JSON.stringify(hello('claude-x', { max_tokens: 1000 }));
    // The upstream reports exactly the reservation (input = body bytes / 3, output = max_tokens), so
    // each admitted call spends what it reserved and the admitted count does not depend on timing.
    const input = Math.ceil(Buffer.byteLength(body) / 3);
    const worstNano = input * 3 * 1000 + 1000 * 15 * 1000;
    const fits = Math.floor(0.1e9 / worstNano);
    expect(fits).toBe(6);
    fake.reply(async () => {
      await sleep(50);
      return anthropicMessage({ input_tokens: input, output_tokens: 1000 });
    });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => messages(i % 2 ? B : A, secret, body)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(fits);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50 - fits);
    // Each instance got 25 calls: budgets kept per instance would have admitted 2 × 6.
    for (const res of responses.filter((r) => r.status === 429)) {
      const { error } = (await res.json()) as { error: { type: string; message: string } };
      expect(error.type).toBe('rate_limit_error');
      expect(error.message).toMatch(/^Budget (busy|exhausted): /);
      // Busy: calls in flight may release budget, so retry after a second; exhausted: asking again cannot help.
      const busy = error.message.startsWith('Budget busy');
      expect([res.headers.get('retry-after'), res.headers.get('x-should-retry')]).toEqual(busy ? ['1', null] : [null, 'false']);
    }
    for (let i = 0; i < fits; i++) expect200(id, 'claude-x', input, 1000);
  });

  it('passthrough (JSON and SSE) and translated (OpenAI upstream, JSON and SSE) calls report the upstream usage', async () => {
    const { id, secret } = await createKey(A, { name: 'usage' });
    const claude = { input_tokens: 21, output_tokens: 15, cache_read_input_tokens: 4, cache_creation_input_tokens: 2 };
    const gpt = { prompt_tokens: 40, completion_tokens: 9, cached_tokens: 8 };
    fake.reply(replyWithUsage(claude, gpt));

    const json = await messages(A, secret, hello());
    expect(((await json.json()) as { usage: unknown }).usage).toMatchObject(claude);
    const sse = await messages(B, secret, hello('claude-x', { stream: true }));
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const relayed = await sse.text();
    expect(relayed).toContain('"output_tokens":15');
    const translated = await messages(A, secret, hello('gpt-x'));
    expect(((await translated.json()) as { usage: unknown }).usage).toMatchObject({ input_tokens: 32, output_tokens: 9, cache_read_input_tokens: 8 });
    const translatedSse = await messages(B, secret, hello('gpt-x', { stream: true }));
    expect(await translatedSse.text()).toContain('event: message_stop');

    expect200(id, 'claude-x', 21, 15, 4, 2);
    expect200(id, 'claude-x', 21, 15, 4, 2);
    // prompt_tokens include the cached ones; the records keep them apart.
    expect200(id, 'gpt-x', 32, 9, 8);
    expect200(id, 'gpt-x', 32, 9, 8);
    // The translated calls asked the OpenAI upstream for usage in the stream.
    expect(fake.requests.at(-1)!.json).toMatchObject({ model: 'up-gpt', stream: true, stream_options: { include_usage: true } });
  });

  it('SIGTERM of both instances writes every pending record; the records match the calls', async () => {
    expect(await Promise.all(children.map(stopServer))).toEqual([0, 0]);
    const sql = postgres(PG_URL, { onnotice: () => {} });
    try {
      const rows = await sql.unsafe(
        `SELECT key_id, family, model, provider, upstream_model, status, input_tokens::int, output_tokens::int, cache_read_tokens::int,
           cache_write_tokens::int, cost_nano_usd::bigint::text AS cost, aborted FROM "${run}".sy_usage`,
      );
      const actual = new Map<string, Array<Record<string, unknown>>>();
      for (const { cost, ...row } of rows as unknown as Array<Record<string, unknown> & { key_id: string; cost: string }>) {
        actual.set(row.key_id, [...(actual.get(row.key_id) ?? []), { ...row, cost_nano_usd: Number(cost) }]);
      }
      const order = (list: Array<Record<string, unknown>>) => [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      expect(new Set(actual.keys())).toEqual(new Set(expected.keys()));
      for (const [keyId, list] of expected) expect(order(actual.get(keyId)!), keyId).toEqual(order(list));

      // The budget key's recorded spend stays within its budget.
      const [budget] = await sql.unsafe(`SELECT sum(cost_nano_usd)::bigint::text AS spent FROM "${run}".sy_usage u JOIN "${run}".sy_keys k ON k.id = u.key_id WHERE k.name = 'budget'`);
      expect(Number(budget!.spent)).toBeGreaterThan(0);
      expect(Number(budget!.spent)).toBeLessThanOrEqual(0.1e9);
    } finally {
      await sql.end();
    }
  });
});
