import type { Redis } from 'ioredis';
import type { RateLimiter } from '../../core/accounting/types.ts';
import { bucketMsFor, DEFAULT_RESERVATION_TTL_MS } from '../../core/accounting/windows.ts';
import { ACQUIRE, SETTLE } from './redis-limiter-scripts.ts';

interface LimiterCommands {
  syAcquire(numKeys: number, ...args: Array<string | number>): Promise<[number, number]>;
  sySettle(numKeys: number, ...args: Array<string | number>): Promise<number>;
}

/**
 * Counters in Redis shared by every instance: one Lua script checks and takes all counters of an
 * admission atomically, another settles them. `prefix` namespaces the keys (one per deployment).
 */
export function createRedisLimiter(redis: Redis, prefix: string, reservationTtlMs = DEFAULT_RESERVATION_TTL_MS): RateLimiter {
  // defineCommand sends EVALSHA and falls back to EVAL when Redis lost the script cache.
  redis.defineCommand('syAcquire', { lua: ACQUIRE });
  redis.defineCommand('sySettle', { lua: SETTLE });
  const commands = redis as unknown as LimiterCommands;
  // Integers only: the scripts format them with %d, and amounts are requests, tokens or nano-USD.
  const int = (n: number) => String(Math.round(n));
  // `rpm:key_1` → `<prefix>rpm:{key_1}`: every counter of one key shares a hash tag, so the
  // scripts' keys stay in one slot should the deployment move to Redis Cluster.
  const redisKey = (name: string) => {
    const colon = name.indexOf(':');
    return colon < 0 ? prefix + name : `${prefix}${name.slice(0, colon)}:{${name.slice(colon + 1)}}`;
  };

  return {
    async acquire(reservationId, counters) {
      const args: string[] = [reservationId, int(reservationTtlMs)];
      for (const c of counters) {
        args.push(int(c.windowMs ?? 0), int(c.windowMs ? bucketMsFor(c.windowMs) : 0), int(c.limit), int(c.amount), c.seed === undefined ? '-1' : int(c.seed));
      }
      const [index, value] = await commands.syAcquire(counters.length, ...counters.map((c) => redisKey(c.name)), ...args);
      if (index === 0) return { ok: true, at: Number(value) };
      const counter = counters[Number(index) - 1]!.name;
      return Number(value) < 0 ? { ok: false, counter } : { ok: false, counter, retryAfterMs: Number(value) };
    },
    async settle(reservationId, at, changes) {
      if (changes.length === 0) return;
      const args: string[] = [reservationId, int(at)];
      for (const c of changes) args.push(int(c.windowMs ?? 0), int(c.windowMs ? bucketMsFor(c.windowMs) : 0), int(c.reserved), int(c.actual));
      await commands.sySettle(changes.length, ...changes.map((c) => redisKey(c.name)), ...args);
    },
    async close() {},
  };
}
