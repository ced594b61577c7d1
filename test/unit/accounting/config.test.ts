import { describe, expect, it } from 'vitest';
import { readAccountingConfig } from '../../../core/accounting/read-config.ts';

describe('accounting configuration', () => {
  it('has defaults for everything; storage and redis stay unset', () => {
    expect(readAccountingConfig({ providers: { x: { apiKey: '${UNSET_PROVIDER_KEY}' } }, models: [] })).toEqual({
      prices: {},
      keyCacheTtlMs: 5000,
      rotateGraceSeconds: 86_400,
      usageBatch: { maxRecords: 100, flushMs: 1000 },
    });
  });

  it('reads every section, interpolating the environment', () => {
    const config = readAccountingConfig(
      {
        storage: { kind: 'postgres', url: '${PG}' },
        redis: { url: 'redis://127.0.0.1:6379' },
        admin: { token: '${SWITCHYARD_ADMIN_TOKEN}' },
        prices: { 'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
        keyCacheTtlMs: 2000,
      },
      { PG: 'postgres://u@db/gw', SWITCHYARD_ADMIN_TOKEN: 'a-long-admin-token-value' },
    );
    expect(config).toEqual({
      storage: { kind: 'postgres', url: 'postgres://u@db/gw', schema: 'public', maxConnections: 10 },
      redis: { url: 'redis://127.0.0.1:6379', prefix: 'switchyard:' },
      admin: { token: 'a-long-admin-token-value' },
      prices: { 'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
      keyCacheTtlMs: 2000,
      rotateGraceSeconds: 86_400,
      usageBatch: { maxRecords: 100, flushMs: 1000 },
    });
    expect(readAccountingConfig({ storage: { kind: 'sqlite' } }).storage).toEqual({ kind: 'sqlite', path: './data/switchyard.db' });
  });

  it.each([
    [{ storage: { kind: 'mysql' } }, 'storage'],
    [{ storage: { kind: 'postgres', url: 'http://x' } }, 'storage.url'],
    [{ storage: { kind: 'postgres', url: 'postgres://x', schema: 'Bad-Name' } }, 'storage.schema'],
    [{ admin: { token: 'short' } }, 'admin.token'],
    [{ admin: {} }, 'needs exactly one of "token" or "sha256"'],
    [{ prices: { m: { input: -1, output: 1 } } }, 'prices.m.input'],
    [{ prices: { m: { input: 1 } } }, 'prices.m.output'],
    [{ redis: { url: 'localhost:6379' } }, 'redis.url'],
  ])('refuses %j naming the path', (doc, path) => {
    expect(() => readAccountingConfig(doc)).toThrow(path);
  });
});
