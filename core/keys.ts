import type { KeyConfig } from './config.ts';
import { GatewayError } from './errors.ts';
import { sha256Hex } from './http/sha256.ts';
import { isPromise, type MaybePromise } from './maybe-promise.ts';

export interface KeyRecord {
  id: string;
  /** Model ids this key may use; undefined means all. */
  models?: ReadonlySet<string>;
  /** Requests per minute (sliding window); undefined means unlimited. */
  rpm?: number;
  /** Input + output tokens per minute (sliding window), reserved at admission. */
  tpm?: number;
  /** Lifetime spend limit in USD, reserved worst-case at admission. */
  budgetUsd?: number;
  /** Unix milliseconds after which the key is refused. */
  expiresAt?: number;
}

/**
 * Verifies presented keys. Implementations compare hashes, never plaintext, so neither the
 * store nor the comparison holds or leaks the secret. A key known from memory should be answered
 * synchronously: this runs on every request, and a promise there is one more on each.
 */
export interface KeyVerifier {
  verify(presented: string): MaybePromise<KeyRecord | undefined>;
}

/** Static keys from the configuration, hashed once at start-up. */
export async function createStaticKeyVerifier(keys: readonly KeyConfig[]): Promise<KeyVerifier> {
  const byHash = new Map<string, KeyRecord>();
  for (const key of keys) {
    const hash = key.sha256 ? key.sha256.toLowerCase() : await sha256Hex(key.key!);
    byHash.set(hash, { id: key.id, models: key.models ? new Set(key.models) : undefined });
  }
  return {
    // A Map lookup keyed by the digest: what varies with timing is the attacker's own hash,
    // which tells nothing about any stored key.
    verify(presented) {
      const hash = hashPresentedKey(presented);
      return typeof hash === 'string' ? byHash.get(hash) : hash.then((digest) => byHash.get(digest));
    },
  };
}

const MEMO_LIMIT = 1024;
const memo = new Map<string, string>();

/**
 * SHA-256 of a presented key, remembered: the same few keys arrive on every request, and the
 * digest is asynchronous (WebCrypto; on Node a thread-pool round trip, ~10% of a passthrough
 * call when it ran per request). A key seen before is answered synchronously from the memo. A pure
 * function's memo, so nothing in it can go stale (revoking a key changes what the hash maps to,
 * not the hash). Bounded: cleared when full, so a flood of random keys costs no more than hashing
 * each, and over-long strings are never kept.
 */
export function hashPresentedKey(presented: string): string | Promise<string> {
  const hash = memo.get(presented);
  return hash !== undefined ? hash : hashAndRemember(presented);
}

/** Apart from hashPresentedKey: its closure, even unmade, gave every call a scope object (see runHandlers in dispatch.ts). */
function hashAndRemember(presented: string): Promise<string> {
  return sha256Hex(presented).then((digest) => {
    if (presented.length <= 512) {
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(presented, digest);
    }
    return digest;
  });
}

/**
 * Reads the key from any of the places the official SDKs put it. `x-api-key` wins over
 * Bearer when both are present, as on the real Anthropic API.
 */
/** `at.query` is read only when no header has a key, so a request with its key in a header parses no query. */
export function readPresentedKey(request: Request, at: { readonly query: URLSearchParams }): string | undefined {
  const headers = request.headers;
  const direct = headers.get('x-api-key') ?? headers.get('x-goog-api-key');
  if (direct) return direct.trim();
  const auth = headers.get('authorization');
  if (auth) {
    const match = /^Bearer\s+(.+)$/i.exec(auth);
    if (match) return match[1]!.trim();
  }
  const query = at.query.get('key');
  return query || undefined;
}

export function authenticate(verifier: KeyVerifier, request: Request, at: { readonly query: URLSearchParams }): MaybePromise<KeyRecord> {
  const presented = readPresentedKey(request, at);
  if (!presented) {
    throw new GatewayError('authentication', 'Missing API key: send it as "Authorization: Bearer <key>", "x-api-key", "x-goog-api-key" or "?key="');
  }
  const record = verifier.verify(presented);
  return isPromise(record) ? record.then(requireRecord) : requireRecord(record);
}

function requireRecord(record: KeyRecord | undefined): KeyRecord {
  if (!record) throw new GatewayError('authentication', 'Invalid API key');
  return record;
}

export function checkModelAllowed(key: KeyRecord, modelId: string): void {
  if (key.models && !key.models.has(modelId)) {
    throw new GatewayError('permission', `This API key may not use model "${modelId}"`, { param: 'model' });
  }
}
