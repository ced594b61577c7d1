import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisKeyEvents } from '../../adapters/storage/redis-key-events.ts';
import { createRedisLimiter } from '../../adapters/storage/redis-limiter.ts';
import { createMemoryUsageStore } from '../../core/accounting/memory-usage-store.ts';
import { createMeter } from '../../core/accounting/meter.ts';
import { createUsageWriter } from '../../core/accounting/usage-writer.ts';
import type { GatewayError } from '../../core/errors.ts';

export const REDIS_URL = process.env.SWITCHYARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const prefix = `sy-test:${process.pid}:${Date.now().toString(36)}:`;
const clients: Redis[] = [];
const client = () => {
  const c = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
};

afterAll(async () => {
  const c = client();
  const keys = await c.keys(`${prefix}*`);
  if (keys.length) await c.del(...keys);
  for (const each of clients) each.disconnect();
});

describe('Redis limiter', () => {
  it('a window limit holds across connections under concurrency, with retry-after', async () => {
    const [a, b] = [createRedisLimiter(client(), prefix), createRedisLimiter(client(), prefix)];
    const rpm = [{ name: 'rpm:k1', windowMs: 60_000, limit: 5, amount: 1 }];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).acquire(`r${i}`, rpm)));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    for (const r of results.filter((x) => !x.ok)) {
      expect(r).toEqual({ ok: false, counter: 'rpm:k1', retryAfterMs: expect.any(Number) });
      expect((r as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(55_000);
      expect((r as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(60_000);
    }
  });

  it('takes all counters or none, and refuses for good what can never fit', async () => {
    const limiter = createRedisLimiter(client(), prefix);
    const both = (amount: number) => [
      { name: 'all:a', windowMs: 60_000, limit: 3, amount: 1 },
      { name: 'all:b', limit: 100, amount, seed: 0 },
    ];
    expect((await limiter.acquire('x1', both(60))).ok).toBe(true);
    expect(await limiter.acquire('x2', both(60))).toEqual({ ok: false, counter: 'all:b', retryAfterMs: 1000 });
    expect(await limiter.acquire('x3', both(101))).toEqual({ ok: false, counter: 'all:b' });
    expect((await limiter.acquire('x4', both(40))).ok).toBe(true);
    expect((await limiter.acquire('x5', both(0))).ok).toBe(true);
    expect((await limiter.acquire('x6', both(0)))).toEqual({ ok: false, counter: 'all:a', retryAfterMs: expect.any(Number) });
  });

  it('settles reservations to real amounts; a seed starts only a missing counter', async () => {
    const limiter = createRedisLimiter(client(), prefix);
    const budget = (amount: number, seed = 0) => [{ name: 'settle:budget', limit: 1000, amount, seed }];
    const first = await limiter.acquire('s1', budget(900, 50));
    expect(first.ok).toBe(true);
    expect(await limiter.acquire('s2', budget(100, 0))).toEqual({ ok: false, counter: 'settle:budget', retryAfterMs: 1000 });
    await limiter.settle('s1', (first as { at: number }).at, [{ name: 'settle:budget', reserved: 900, actual: 300 }]);
    // used = 50 (seed) + 300: 650 left, and the later seed of 0 changed nothing.
    expect((await limiter.acquire('s3', budget(650))).ok).toBe(true);
    expect(await limiter.acquire('s4', budget(1))).toEqual({ ok: false, counter: 'settle:budget', retryAfterMs: 1000 });
    const tpm = [{ name: 'settle:tpm', windowMs: 60_000, limit: 100, amount: 80 }];
    const t = await limiter.acquire('t1', tpm);
    await limiter.settle('t1', (t as { at: number }).at, [{ name: 'settle:tpm', windowMs: 60_000, reserved: 80, actual: 20 }]);
    expect((await limiter.acquire('t2', tpm)).ok).toBe(true);
  });

  it('a reservation never settled (crashed instance) expires', async () => {
    const limiter = createRedisLimiter(client(), prefix, 150);
    const budget = [{ name: 'ttl:budget', limit: 10, amount: 10, seed: 0 }];
    expect((await limiter.acquire('lost', budget)).ok).toBe(true);
    expect((await limiter.acquire('next', budget)).ok).toBe(false);
    await new Promise((r) => setTimeout(r, 200));
    expect((await limiter.acquire('next', budget)).ok).toBe(true);
  });

  it('a budget is not overrun by 50 concurrent admissions through two meters', async () => {
    const usage = createMemoryUsageStore();
    const meters = [0, 1].map(() =>
      createMeter({ limiter: createRedisLimiter(client(), prefix), usage: createUsageWriter(usage), prices: { m: { input: 1, output: 10 } } }),
    );
    const key = { id: `budget-${Date.now()}`, budgetUsd: 1 };
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => meters[i % 2]!.admit(key, { requestId: `b${i}`, model: 'm', family: 'openai', estimatedInputTokens: 1000, maxOutputTokens: 10_000 })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(9);
    const codes = new Set(results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as GatewayError).opts.code));
    expect(codes).toEqual(new Set(['budget_reserved']));
  });
});

describe('Redis key events', () => {
  it('a revocation published by one instance reaches the others', async () => {
    const channel = `${prefix}events`;
    const [a, b] = await Promise.all([createRedisKeyEvents(client(), channel), createRedisKeyEvents(client(), channel)]);
    const seen: string[] = [];
    b.subscribe((id) => seen.push(id));
    const started = Date.now();
    await a.publish('key_123');
    await expect.poll(() => seen, { timeout: 2000, interval: 5 }).toEqual(['key_123']);
    expect(Date.now() - started).toBeLessThan(500);
    await Promise.all([a.close(), b.close()]);
  });
});
