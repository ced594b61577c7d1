import { resolve } from 'node:path';
import type { AccountingConfig } from '../../core/accounting/config.ts';
import { createKeyStore } from '../../core/accounting/key-store.ts';
import { createMemoryKeyBackend } from '../../core/accounting/memory-key-backend.ts';
import { createMemoryLimiter } from '../../core/accounting/memory-limiter.ts';
import { createMemoryUsageStore } from '../../core/accounting/memory-usage-store.ts';
import { createMeter } from '../../core/accounting/meter.ts';
import type { Clock, KeyBackend, KeyEvents, KeyStore, Meter, RateLimiter, UsageSink, UsageStore } from '../../core/accounting/types.ts';
import { createUsageWriter } from '../../core/accounting/usage-writer.ts';
import type { KeyConfig } from '../../core/config.ts';
import { createStaticKeyVerifier } from '../../core/keys.ts';
import { isPromise } from '../../core/maybe-promise.ts';

export interface Storage {
  /** Stored keys, with the configuration's static keys accepted alongside. */
  keys: KeyStore;
  meter: Meter;
  usage: UsageStore;
  limiter: RateLimiter;
  /** The batching writer behind the meter; `flush()` writes what is pending. */
  usageWriter: UsageSink;
  /** One line for the start-up log, e.g. "sqlite ./data/switchyard.db (better-sqlite3), limits in redis". */
  description: string;
  /** Flushes pending usage, then closes every connection. */
  close(): Promise<void>;
}

export interface OpenStorageOptions {
  clock?: Clock;
  onError?: (err: unknown) => void;
}

export const DEFAULT_SQLITE_PATH = './data/switchyard.db';

/**
 * Opens what the configuration names: SQLite (the default, a file under ./data), PostgreSQL or
 * memory for keys and usage; Redis, when configured, for limits and revocation events shared by
 * every instance (in-memory limits otherwise, exact only for a gateway running alone).
 */
export async function openStorage(config: AccountingConfig & { keys?: readonly KeyConfig[] }, options: OpenStorageOptions = {}): Promise<Storage> {
  const onError = options.onError ?? ((err: unknown) => console.error(`switchyard: storage: ${String(err)}`));
  const storage = config.storage ?? { kind: 'sqlite' as const, path: DEFAULT_SQLITE_PATH };
  const closers: Array<() => Promise<void> | void> = [];
  let backend: KeyBackend;
  let usage: UsageStore;
  let description: string;

  if (storage.kind === 'memory') {
    backend = createMemoryKeyBackend();
    usage = createMemoryUsageStore();
    description = 'memory (nothing survives a restart)';
  } else if (storage.kind === 'sqlite') {
    const [{ openSqlite }, { createSqliteSchema }, { createSqliteKeyBackend }, { createSqliteUsageStore }] = await Promise.all([
      import('./sqlite-driver.ts'),
      import('./sqlite-schema.ts'),
      import('./sqlite-key-backend.ts'),
      import('./sqlite-usage-store.ts'),
    ]);
    const db = await openSqlite(storage.path === ':memory:' ? storage.path : resolve(storage.path));
    createSqliteSchema(db);
    backend = createSqliteKeyBackend(db);
    usage = createSqliteUsageStore(db);
    closers.push(() => db.close());
    description = `sqlite ${storage.path} (${db.driver})`;
  } else {
    const { openPostgresStorage } = await import('./postgres-storage.ts');
    const pg = await openPostgresStorage(storage);
    backend = pg.keys;
    usage = pg.usage;
    closers.push(() => pg.close());
    description = `postgres schema "${storage.schema}"`;
  }

  let limiter: RateLimiter;
  let events: KeyEvents | undefined;
  if (config.redis) {
    const [{ Redis }, { createRedisLimiter }, { createRedisKeyEvents }] = await Promise.all([
      import('ioredis'),
      import('./redis-limiter.ts'),
      import('./redis-key-events.ts'),
    ]);
    // Fail fast while Redis is unreachable: a refused admission beats a request hanging on a queue.
    const redis = new Redis(config.redis.url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
    redis.on('error', onError);
    limiter = createRedisLimiter(redis, config.redis.prefix);
    events = await createRedisKeyEvents(redis, `${config.redis.prefix}key-events`);
    closers.unshift(() => void redis.disconnect());
    description += ', limits and revocations in redis';
  } else {
    limiter = createMemoryLimiter({ clock: options.clock });
    description += ', limits in memory (this instance only)';
  }

  const store = createKeyStore(backend, { cacheTtlMs: config.keyCacheTtlMs, clock: options.clock, events, onError });
  const fixed = config.keys?.length ? await createStaticKeyVerifier(config.keys) : undefined;
  const keys: KeyStore = {
    ...store,
    // The configuration's keys first, then the stored ones; a cached answer stays synchronous.
    verify: fixed
      ? (presented) => {
          const found = fixed.verify(presented);
          if (isPromise(found)) return found.then((record) => record ?? store.verify(presented));
          return found ?? store.verify(presented);
        }
      : store.verify,
  };
  const usageWriter = createUsageWriter(usage, { ...config.usageBatch, onError });
  const meter = createMeter({
    limiter,
    usage: usageWriter,
    prices: config.prices,
    clock: options.clock,
    onError,
    spentUsd: async (keyId) => (await usage.summarize({ by: 'key', keyId }))[0]?.costUsd ?? 0,
  });

  return {
    keys,
    meter,
    usage,
    limiter,
    usageWriter,
    description,
    async close() {
      await usageWriter.flush().catch(onError);
      await store.close();
      for (const close of closers) await close();
    },
  };
}
