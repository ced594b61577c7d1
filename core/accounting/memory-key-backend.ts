import type { KeyBackend, StoredKey } from './types.ts';

/** Keys in process memory: for tests and for `storage.kind = "memory"` (lost on exit). */
export function createMemoryKeyBackend(): KeyBackend {
  const keys = new Map<string, StoredKey>();
  const hashes = new Map<string, { keyId: string; expiresAt?: number }>();
  const copy = (key: StoredKey | undefined): StoredKey | undefined => key && structuredClone(key);

  return {
    async insert(key, hash) {
      if (keys.has(key.id)) throw new Error(`duplicate key id ${key.id}`);
      keys.set(key.id, structuredClone(key));
      hashes.set(hash, { keyId: key.id });
    },
    async findByHash(hash) {
      const found = hashes.get(hash);
      const key = found && keys.get(found.keyId);
      if (!found || !key) return undefined;
      return found.expiresAt === undefined ? { key: copy(key)! } : { key: copy(key)!, hashExpiresAt: found.expiresAt };
    },
    async list() {
      return [...keys.values()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)).map((k) => copy(k)!);
    },
    async get(id) {
      return copy(keys.get(id));
    },
    async revoke(id, at) {
      const key = keys.get(id);
      if (key && key.revokedAt === undefined) key.revokedAt = at;
      return copy(key);
    },
    async rotate(id, hash, prefix, graceUntil) {
      const key = keys.get(id);
      if (!key || key.revokedAt !== undefined) return undefined;
      for (const entry of hashes.values()) {
        if (entry.keyId === id) entry.expiresAt = Math.min(entry.expiresAt ?? Infinity, graceUntil);
      }
      hashes.set(hash, { keyId: id });
      key.prefix = prefix;
      return copy(key);
    },
    async close() {},
  };
}
