import type { Acquired, Clock, Counter, RateLimiter } from './types.ts';
import { systemClock } from './types.ts';
import { bucketMsFor, DEFAULT_RESERVATION_TTL_MS, windowRetryAfterMs } from './windows.ts';

interface Total {
  used: number;
  holds: Map<string, { amount: number; deadline: number }>;
}

/**
 * Counters in process memory, for a gateway running alone. Same semantics as the Redis limiter:
 * all counters of an admission are checked first and taken together, and JavaScript's single
 * thread makes that atomic.
 */
export function createMemoryLimiter(options: { clock?: Clock; reservationTtlMs?: number } = {}): RateLimiter {
  const clock = options.clock ?? systemClock;
  const ttl = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  const windows = new Map<string, Map<number, number>>();
  const totals = new Map<string, Total>();

  function liveWindow(name: string, windowMs: number, now: number): Map<number, number> {
    let buckets = windows.get(name);
    if (!buckets) windows.set(name, (buckets = new Map()));
    const bucketMs = bucketMsFor(windowMs);
    const oldest = Math.floor(now / bucketMs) - Math.ceil(windowMs / bucketMs) + 1;
    for (const index of buckets.keys()) if (index < oldest) buckets.delete(index);
    return buckets;
  }

  function liveTotal(name: string, seed: number | undefined, now: number): Total {
    let total = totals.get(name);
    if (!total) totals.set(name, (total = { used: seed ?? 0, holds: new Map() }));
    for (const [id, hold] of total.holds) if (hold.deadline < now) total.holds.delete(id);
    return total;
  }

  function refusal(counter: Counter, now: number): Acquired | undefined {
    const { name, windowMs, limit, amount } = counter;
    if (windowMs) {
      const buckets = liveWindow(name, windowMs, now);
      let used = 0;
      for (const value of buckets.values()) used += value;
      if (used + amount <= limit) return undefined;
      if (amount > limit) return { ok: false, counter: name };
      return { ok: false, counter: name, retryAfterMs: windowRetryAfterMs([...buckets], used, amount, limit, windowMs, now) };
    }
    const total = liveTotal(name, counter.seed, now);
    let held = 0;
    for (const hold of total.holds.values()) held += hold.amount;
    if (total.used + held + amount <= limit) return undefined;
    // Only settled spend counts as gone for good; held amounts may still be released.
    if (total.used + amount > limit) return { ok: false, counter: name };
    return { ok: false, counter: name, retryAfterMs: 1000 };
  }

  return {
    async acquire(reservationId, counters) {
      const now = clock.now();
      for (const counter of counters) {
        const refused = refusal(counter, now);
        if (refused) return refused;
      }
      for (const { name, windowMs, amount } of counters) {
        if (windowMs) {
          const buckets = windows.get(name)!;
          const index = Math.floor(now / bucketMsFor(windowMs));
          buckets.set(index, (buckets.get(index) ?? 0) + amount);
        } else {
          totals.get(name)!.holds.set(reservationId, { amount, deadline: now + ttl });
        }
      }
      return { ok: true, at: now };
    },

    async settle(reservationId, at, changes) {
      for (const { name, windowMs, reserved, actual } of changes) {
        if (windowMs) {
          const buckets = windows.get(name);
          const index = Math.floor(at / bucketMsFor(windowMs));
          const value = buckets?.get(index);
          // A bucket that already left the window no longer counts; correcting it would change nothing.
          if (buckets && value !== undefined) buckets.set(index, value + actual - reserved);
        } else {
          const total = totals.get(name);
          if (!total) continue;
          total.holds.delete(reservationId);
          total.used += actual;
        }
      }
    },

    async close() {},
  };
}
