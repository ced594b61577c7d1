import { GatewayError } from '../errors.ts';
import { sha256Hex } from '../http/sha256.ts';
import { newKeyId, newSecret, secretPrefix } from './key-secret.ts';
import type { Clock, CreateKeyInput, KeyBackend, KeyEvents, KeyStore, StoredKey } from './types.ts';
import { systemClock } from './types.ts';
import { createVerifyCache, isLive, type VerifyEntry } from './verify-cache.ts';
import { hashPresentedKey, type KeyRecord } from '../keys.ts';
import { isPromise, type MaybePromise } from '../maybe-promise.ts';

export interface KeyStoreOptions {
  /** How long a verification is trusted without asking storage; also the bound on revocation delay. */
  cacheTtlMs?: number;
  clock?: Clock;
  /** Cross-instance invalidation (Redis pub/sub); without it other instances notice within the TTL. */
  events?: KeyEvents;
  onError?: (err: unknown) => void;
}

/**
 * Keys kept in a backend as sha256 hashes. `verify` runs on every request and is answered from
 * an in-memory cache for `cacheTtlMs`; revoke and rotate drop the local cache at once and
 * publish the key id so that other instances drop theirs.
 */
export function createKeyStore(backend: KeyBackend, options: KeyStoreOptions = {}): KeyStore & { close(): Promise<void> } {
  const clock = options.clock ?? systemClock;
  const cache = createVerifyCache(options.cacheTtlMs ?? 5000, clock);
  const events = options.events;
  const onError = options.onError ?? ((err) => console.error(`switchyard: key event: ${String(err)}`));
  events?.subscribe((keyId) => cache.dropKey(keyId));

  /** A cached key is answered without a promise: this runs on every request. */
  function verifyHash(hash: string): MaybePromise<KeyRecord | undefined> {
    const entry = cache.lookup(hash, () => backend.findByHash(hash));
    return isPromise(entry) ? entry.then(readEntry) : readEntry(entry);
  }

  function readEntry(entry: VerifyEntry): KeyRecord | undefined {
    return entry.match && isLive(entry.match, clock.now()) ? entry.record : undefined;
  }

  async function announce(keyId: string): Promise<void> {
    cache.dropKey(keyId);
    // A lost event only delays the change to the cache TTL, so it never fails the operation.
    await events?.publish(keyId).catch(onError);
  }

  return {
    verify(presented) {
      const hash = hashPresentedKey(presented);
      return typeof hash === 'string' ? verifyHash(hash) : hash.then(verifyHash);
    },

    async create(input) {
      checkCreateInput(input, clock.now());
      const secret = newSecret();
      const record: StoredKey = { id: newKeyId(), name: input.name, prefix: secretPrefix(secret), createdAt: clock.now() };
      if (input.expiresAt !== undefined) record.expiresAt = input.expiresAt;
      if (input.models) record.models = [...new Set(input.models)];
      if (input.rpm !== undefined) record.rpm = input.rpm;
      if (input.tpm !== undefined) record.tpm = input.tpm;
      if (input.budgetUsd !== undefined) record.budgetUsd = input.budgetUsd;
      await backend.insert(record, await sha256Hex(secret));
      return { record, secret };
    },

    list: () => backend.list(),
    get: (id) => backend.get(id),

    async revoke(id) {
      const record = await backend.revoke(id, clock.now());
      if (record) await announce(id);
      return record;
    },

    async rotate(id, graceSeconds) {
      if (!Number.isFinite(graceSeconds) || graceSeconds < 0) {
        throw new GatewayError('invalid_request', 'graceSeconds must be a number of seconds >= 0', { param: 'graceSeconds' });
      }
      const secret = newSecret();
      const now = clock.now();
      const record = await backend.rotate(id, await sha256Hex(secret), secretPrefix(secret), now + Math.round(graceSeconds * 1000));
      if (!record) return undefined;
      await announce(id);
      return { record, secret };
    },

    async close() {
      await events?.close();
      await backend.close();
    },
  };
}

function checkCreateInput(input: CreateKeyInput, now: number): void {
  const bad = (param: string, message: string) => new GatewayError('invalid_request', `${param}: ${message}`, { param });
  if (typeof input.name !== 'string' || !input.name.trim() || input.name.length > 200) throw bad('name', 'must be 1 to 200 characters');
  for (const field of ['rpm', 'tpm'] as const) {
    const value = input[field];
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) throw bad(field, 'must be a positive integer');
  }
  if (input.budgetUsd !== undefined && !(Number.isFinite(input.budgetUsd) && input.budgetUsd >= 0 && input.budgetUsd <= 1e6)) {
    throw bad('budgetUsd', 'must be a number of USD between 0 and 1000000');
  }
  if (input.expiresAt !== undefined && !(Number.isFinite(input.expiresAt) && input.expiresAt > now)) throw bad('expiresAt', 'must be in the future');
  if (input.models && (!Array.isArray(input.models) || input.models.some((m) => typeof m !== 'string' || !m))) {
    throw bad('models', 'must be a list of model ids');
  }
}
