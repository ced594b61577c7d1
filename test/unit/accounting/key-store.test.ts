import { describe, expect, it } from 'vitest';
import { createKeyStore } from '../../../core/accounting/key-store.ts';
import { createMemoryKeyBackend } from '../../../core/accounting/memory-key-backend.ts';
import type { KeyBackend, KeyEvents } from '../../../core/accounting/types.ts';
import { sha256Hex } from '../../../core/http/sha256.ts';

const T0 = 1_700_000_000_000;

function setup(ttl = 5000, events?: KeyEvents) {
  const clock = { t: T0, now() { return this.t; } };
  const inner = createMemoryKeyBackend();
  let lookups = 0;
  const backend: KeyBackend = { ...inner, findByHash: (hash) => (lookups++, inner.findByHash(hash)) };
  const store = createKeyStore(backend, { cacheTtlMs: ttl, clock, events });
  return { clock, store, inner, lookups: () => lookups };
}

function fakeBus(): KeyEvents & { instances: Array<(id: string) => void> } {
  const instances: Array<(id: string) => void> = [];
  return {
    instances,
    async publish(id) {
      for (const l of instances) l(id);
    },
    subscribe(l) {
      instances.push(l);
    },
    async close() {},
  };
}

describe('key store', () => {
  it('returns the secret once and stores only its sha256 and a short prefix', async () => {
    const { store, inner } = setup();
    const { record, secret } = await store.create({ name: 'ci', models: ['a', 'a', 'b'], rpm: 10, tpm: 5000, budgetUsd: 2, expiresAt: T0 + 1000 });
    expect(secret).toMatch(/^sy-[0-9a-f]{48}$/);
    expect(record).toEqual({ id: expect.stringMatching(/^key_[0-9a-f]{16}$/), name: 'ci', prefix: secret.slice(0, 10), createdAt: T0, expiresAt: T0 + 1000, models: ['a', 'b'], rpm: 10, tpm: 5000, budgetUsd: 2 });
    expect(JSON.stringify(await inner.list())).not.toContain(secret.slice(10));
    expect(await inner.findByHash(await sha256Hex(secret))).toEqual({ key: record });
    const verified = await store.verify(secret);
    expect(verified).toEqual({ id: record.id, models: new Set(['a', 'b']), rpm: 10, tpm: 5000, budgetUsd: 2, expiresAt: T0 + 1000 });
    // One character changed (never to itself: a secret ending in 0 made this check flaky).
    expect(await store.verify(`${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}`)).toBeUndefined();
  });

  it('refuses an expired key', async () => {
    const { clock, store } = setup();
    const { secret } = await store.create({ name: 'x', expiresAt: T0 + 1000 });
    expect(await store.verify(secret)).toBeDefined();
    clock.t = T0 + 1000;
    expect(await store.verify(secret)).toBeUndefined();
  });

  it('rejects bad input naming the field', async () => {
    const { store } = setup();
    await expect(store.create({ name: ' ' })).rejects.toMatchObject({ kind: 'invalid_request', opts: { param: 'name' } });
    await expect(store.create({ name: 'x', rpm: 0 })).rejects.toMatchObject({ opts: { param: 'rpm' } });
    await expect(store.create({ name: 'x', tpm: 1.5 })).rejects.toMatchObject({ opts: { param: 'tpm' } });
    await expect(store.create({ name: 'x', budgetUsd: -1 })).rejects.toMatchObject({ opts: { param: 'budgetUsd' } });
    await expect(store.create({ name: 'x', expiresAt: T0 })).rejects.toMatchObject({ opts: { param: 'expiresAt' } });
  });

  it('answers repeated verifications from the cache for the TTL, one lookup per hash', async () => {
    const { clock, store, lookups } = setup(5000);
    const { secret } = await store.create({ name: 'x' });
    await Promise.all(Array.from({ length: 20 }, () => store.verify(secret)));
    for (let i = 0; i < 20; i++) await store.verify(secret);
    expect(lookups()).toBe(1);
    clock.t += 5000;
    await store.verify(secret);
    expect(lookups()).toBe(2);
  });

  it('rotation: the old secret works for the grace period, the new one at once', async () => {
    const { clock, store } = setup(0);
    const { record, secret } = await store.create({ name: 'x' });
    const rotated = (await store.rotate(record.id, 60))!;
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.record.prefix).toBe(rotated.secret.slice(0, 10));
    expect((await store.verify(secret))?.id).toBe(record.id);
    expect((await store.verify(rotated.secret))?.id).toBe(record.id);
    clock.t += 60_000;
    expect(await store.verify(secret)).toBeUndefined();
    expect((await store.verify(rotated.secret))?.id).toBe(record.id);
    // A second rotation never extends an earlier secret's grace.
    const again = (await store.rotate(record.id, 3600))!;
    expect(await store.verify(secret)).toBeUndefined();
    expect((await store.verify(again.secret))?.id).toBe(record.id);
  });

  it('revocation is immediate on this instance even with a warm cache', async () => {
    const { store } = setup(60_000);
    const { record, secret } = await store.create({ name: 'x' });
    expect(await store.verify(secret)).toBeDefined();
    const revoked = await store.revoke(record.id);
    expect(revoked?.revokedAt).toBe(T0);
    expect(await store.verify(secret)).toBeUndefined();
    expect(await store.rotate(record.id, 0)).toBeUndefined();
    expect((await store.revoke(record.id))?.revokedAt).toBe(T0);
    expect(await store.revoke('key_missing')).toBeUndefined();
  });

  it('another instance drops its cached key when the event arrives, else within the TTL', async () => {
    const bus = fakeBus();
    const shared = createMemoryKeyBackend();
    const clock = { t: T0, now() { return this.t; } };
    const a = createKeyStore(shared, { cacheTtlMs: 5000, clock, events: bus });
    const b = createKeyStore(shared, { cacheTtlMs: 5000, clock, events: bus });
    const c = createKeyStore(shared, { cacheTtlMs: 5000, clock }); // no event channel
    const { record, secret } = await a.create({ name: 'x' });
    for (const s of [a, b, c]) expect(await s.verify(secret)).toBeDefined();
    await a.revoke(record.id);
    expect(await b.verify(secret)).toBeUndefined();
    expect(await c.verify(secret)).toBeDefined();
    clock.t += 4999;
    expect(await c.verify(secret)).toBeDefined();
    clock.t += 1;
    expect(await c.verify(secret)).toBeUndefined();
  });

  it('a failed event publish does not fail the revocation', async () => {
    const errors: unknown[] = [];
    const store = createKeyStore(createMemoryKeyBackend(), {
      events: { publish: async () => { throw new Error('redis down'); }, subscribe() {}, async close() {} },
      onError: (e) => errors.push(e),
    });
    const { record } = await store.create({ name: 'x' });
    expect((await store.revoke(record.id))?.revokedAt).toBeDefined();
    expect(errors).toHaveLength(1);
  });
});

describe('key store: the per-request path answers from memory without a promise', () => {
  it('a cached key verifies synchronously; a first sight or an expired cache entry waits on the backend', async () => {
    const { clock, store, lookups } = setup(5000);
    const { record, secret } = await store.create({ name: 'sync' });
    const first = store.verify(secret);
    expect(first).toBeInstanceOf(Promise);
    expect((await first)?.id).toBe(record.id);
    const cached = store.verify(secret);
    expect(cached).not.toBeInstanceOf(Promise);
    expect((cached as { id: string }).id).toBe(record.id);
    expect(lookups()).toBe(1);
    clock.t += 5001;
    expect(store.verify(secret)).toBeInstanceOf(Promise);
  });
});
