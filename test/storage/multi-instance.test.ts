import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../adapters/storage/open-storage.ts';
import { readAccountingConfig } from '../../core/accounting/read-config.ts';

const PG_URL = process.env.SWITCHYARD_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.SWITCHYARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const root = fileURLToPath(new URL('../../', import.meta.url));
const run = `sy_multi_${process.pid}_${Date.now().toString(36)}`;
const ADMIN = 'multi-instance-admin-token';
const accounting = {
  storage: { kind: 'postgres', url: PG_URL, schema: run, maxConnections: 4 },
  redis: { url: REDIS_URL, prefix: `${run}:` },
  admin: { token: ADMIN },
  prices: { m: { input: 1, output: 10 } },
  keyCacheTtlMs: 5000,
  // Nothing is written before shutdown: the final count proves close() flushes.
  usageBatch: { maxRecords: 1000, flushMs: 600_000 },
};
const gateway = { prefix: 'acme', providers: { fake: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } }, models: [{ id: 'm', routes: [{ provider: 'fake', model: 'm' }] }] };

const dir = mkdtempSync(join(tmpdir(), 'sy-multi-'));
const configPath = join(dir, 'config.json');
const children: ChildProcess[] = [];
let urls: string[] = [];
let store: Storage;

function startInstance(): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/storage/fixtures/gateway-server.ts', configPath], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(`http://127.0.0.1:${match[1]}`);
    });
    child.once('exit', (code) => reject(new Error(`instance exited with ${code}`)));
  });
}

function stopInstance(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

beforeAll(async () => {
  writeFileSync(configPath, JSON.stringify({ gateway, accounting }));
  store = await openStorage(readAccountingConfig(accounting));
  urls = await Promise.all([startInstance(), startInstance()]);
}, 30_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await store?.close();
  const sql = postgres(PG_URL, { onnotice: () => {} });
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${run}" CASCADE`);
  await sql.end();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${run}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const admit = (url: string, secret: string, outcome = { status: 200, usage: { inputTokens: 1000, outputTokens: 10_000 }, latencyMs: 1, aborted: false }) =>
  fetch(`${url}/test/admit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ call: { model: 'm', family: 'openai', estimatedInputTokens: 1000, maxOutputTokens: 10_000 }, outcome }),
  });

describe('two gateway processes sharing PostgreSQL and Redis', () => {
  it('a global RPM limit holds across both instances', async () => {
    const { secret } = await store.keys.create({ name: 'rpm', rpm: 10 });
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => admit(urls[i % 2]!, secret, { status: 200, latencyMs: 1, aborted: false } as never)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const refused = responses.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    expect(await refused.json()).toEqual({ error: 'Rate limit reached: this API key allows 10 requests per minute', code: 'rate_limit_exceeded' });
    // Each instance answered 15: with limits per instance, 20 would have passed.
    expect(new Set(responses.map((r) => r.headers.get('x-pid'))).size).toBe(2);
  });

  it('a key revoked through one instance is refused by the other at once (Redis event, not the 5 s TTL)', async () => {
    const created = await fetch(`${urls[0]}/admin/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ name: 'revoke-me' }) });
    expect(created.status).toBe(201);
    const { key, secret } = (await created.json()) as { key: { id: string }; secret: string };
    const models = (url: string) => fetch(`${url}/api/openai/v1/models`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
    // Both instances now hold the key in their verification cache.
    expect([await models(urls[0]!), await models(urls[1]!)]).toEqual([200, 200]);
    const revoked = await fetch(`${urls[0]}/admin/v1/keys/${key.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(revoked.status).toBe(200);
    const started = Date.now();
    while ((await models(urls[1]!)) !== 401) {
      expect(Date.now() - started).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await models(urls[0]!)).toBe(401);
  });

  it('a budget is not overrun by 50 concurrent requests, and shutdown loses no usage record', async () => {
    const { record, secret } = await store.keys.create({ name: 'budget', budgetUsd: 1 });
    // Worst case and real cost are both $0.101 a call: nine fit in $1, however the calls interleave.
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => admit(urls[i % 2]!, secret)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(9);
    expect(statuses.filter((s) => s === 429)).toHaveLength(41);
    expect(await Promise.all(children.map(stopInstance))).toEqual([0, 0]);
    expect(await store.usage.summarize({ by: 'key', keyId: record.id })).toEqual([
      { group: record.id, requests: 9, errors: 0, inputTokens: 9000, outputTokens: 90_000, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.909 },
    ]);
  });
});
