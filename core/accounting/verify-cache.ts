import type { KeyRecord } from '../keys.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { Clock, HashMatch } from './types.ts';

export interface VerifyEntry {
  match: HashMatch | undefined;
  /** Built once per entry so that a cached verification allocates nothing. */
  record: KeyRecord | undefined;
  until: number;
}

export interface VerifyCache {
  /** The stored match for a hash, from memory when fresher than the TTL. */
  lookup(hash: string, load: () => Promise<HashMatch | undefined>): MaybePromise<VerifyEntry>;
  /** Forgets every cached hash of a key (revoked or rotated here or on another instance). */
  dropKey(keyId: string): void;
}

/**
 * Remembers verified (and refused) hashes for `ttlMs`, so a request costs one Map read instead
 * of a database query. A revocation reaches an instance that missed the event after at most
 * `ttlMs`. Concurrent misses for one hash share a single load.
 */
export function createVerifyCache(ttlMs: number, clock: Clock, maxEntries = 10_000): VerifyCache {
  const entries = new Map<string, VerifyEntry>();
  const loading = new Map<string, Promise<VerifyEntry>>();
  // A load that began before a drop may have read the pre-revocation row: it is used once, never cached.
  let generation = 0;

  async function load(hash: string, read: () => Promise<HashMatch | undefined>): Promise<VerifyEntry> {
    const started = generation;
    const match = await read();
    const entry: VerifyEntry = { match, record: match && toKeyRecord(match), until: clock.now() + ttlMs };
    if (ttlMs > 0 && started === generation) {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(hash, entry);
    }
    return entry;
  }

  return {
    lookup(hash, read) {
      const hit = entries.get(hash);
      if (hit && hit.until > clock.now()) return hit;
      if (hit) entries.delete(hash);
      const joined = loading.get(hash);
      if (joined) return joined;
      const pending: Promise<VerifyEntry> = load(hash, read).finally(() => {
        if (loading.get(hash) === pending) loading.delete(hash);
      });
      loading.set(hash, pending);
      return pending;
    },
    dropKey(keyId) {
      generation++;
      loading.clear();
      for (const [hash, entry] of entries) if (entry.match?.key.id === keyId) entries.delete(hash);
    },
  };
}

function toKeyRecord({ key }: HashMatch): KeyRecord {
  const record: KeyRecord = { id: key.id };
  if (key.models) record.models = new Set(key.models);
  if (key.rpm !== undefined) record.rpm = key.rpm;
  if (key.tpm !== undefined) record.tpm = key.tpm;
  if (key.budgetUsd !== undefined) record.budgetUsd = key.budgetUsd;
  if (key.expiresAt !== undefined) record.expiresAt = key.expiresAt;
  return record;
}

/** Whether a cached or fresh match still admits a request at `now`. */
export function isLive(match: HashMatch, now: number): boolean {
  if (match.key.revokedAt !== undefined) return false;
  if (match.key.expiresAt !== undefined && match.key.expiresAt <= now) return false;
  return match.hashExpiresAt === undefined || match.hashExpiresAt > now;
}
