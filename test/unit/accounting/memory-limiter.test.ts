import { describe, expect, it } from 'vitest';
import { createMemoryLimiter } from '../../../core/accounting/memory-limiter.ts';

const T0 = 1_700_000_040_000;

describe('memory limiter', () => {
  it('takes all counters of an admission or none', async () => {
    const clock = { t: T0, now() { return this.t; } };
    const limiter = createMemoryLimiter({ clock });
    const counters = (amount: number) => [
      { name: 'a', windowMs: 60_000, limit: 10, amount: 1 },
      { name: 'b', limit: 100, amount, seed: 0 },
    ];
    expect(await limiter.acquire('r1', counters(60))).toEqual({ ok: true, at: T0 });
    expect(await limiter.acquire('r2', counters(60))).toEqual({ ok: false, counter: 'b', retryAfterMs: 1000 });
    // r2 took nothing from "a": nine more requests fit.
    for (let i = 0; i < 9; i++) expect((await limiter.acquire(`s${i}`, [counters(0)[0]!])).ok).toBe(true);
    expect(await limiter.acquire('x', [counters(0)[0]!])).toEqual({ ok: false, counter: 'a', retryAfterMs: 60_000 });
  });

  it('expires held reservations of a caller that never settled', async () => {
    const clock = { t: T0, now() { return this.t; } };
    const limiter = createMemoryLimiter({ clock, reservationTtlMs: 1000 });
    const budget = (amount: number) => [{ name: 'budget', limit: 100, amount, seed: 30 }];
    expect((await limiter.acquire('lost', budget(70))).ok).toBe(true);
    expect(await limiter.acquire('r', budget(1))).toEqual({ ok: false, counter: 'budget', retryAfterMs: 1000 });
    clock.t += 1001;
    expect((await limiter.acquire('r', budget(70))).ok).toBe(true);
    expect(await limiter.acquire('q', budget(1))).toEqual({ ok: false, counter: 'budget', retryAfterMs: 1000 });
    await limiter.settle('r', clock.t, [{ name: 'budget', reserved: 70, actual: 69 }]);
    expect((await limiter.acquire('q', budget(1))).ok).toBe(true);
    expect(await limiter.acquire('z', budget(1))).toEqual({ ok: false, counter: 'budget', retryAfterMs: 1000 });
  });

  it('window retry-after counts down to when the oldest bucket leaves', async () => {
    const clock = { t: T0, now() { return this.t; } };
    const limiter = createMemoryLimiter({ clock });
    const tpm = (amount: number) => [{ name: 'tpm', windowMs: 60_000, limit: 100, amount }];
    await limiter.acquire('a', tpm(50));
    clock.t += 10_500;
    await limiter.acquire('b', tpm(50));
    expect(await limiter.acquire('c', tpm(40))).toEqual({ ok: false, counter: 'tpm', retryAfterMs: 49_500 });
    expect(await limiter.acquire('c', tpm(101))).toEqual({ ok: false, counter: 'tpm' });
    // Settling "a" to 10 tokens makes room for 40 at once.
    await limiter.settle('a', T0, [{ name: 'tpm', windowMs: 60_000, reserved: 50, actual: 10 }]);
    expect((await limiter.acquire('c', tpm(40))).ok).toBe(true);
  });
});
