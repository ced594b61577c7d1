import type { Family } from '../families/family.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { Usage } from '../ir.ts';
import type { KeyRecord, KeyVerifier } from '../keys.ts';

/** Milliseconds since the epoch; injectable so tests can move time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

// ---------------------------------------------------------------------------------------------
// Keys

/** What an operator sees about a stored key: never the secret, never its hash. */
export interface StoredKey {
  id: string;
  name: string;
  /** The first characters of the current secret, enough to recognise it (`sy-1a2b3c4`). */
  prefix: string;
  createdAt: number;
  expiresAt?: number;
  revokedAt?: number;
  models?: string[];
  rpm?: number;
  tpm?: number;
  budgetUsd?: number;
}

export interface CreateKeyInput {
  name: string;
  expiresAt?: number;
  models?: string[];
  rpm?: number;
  tpm?: number;
  budgetUsd?: number;
}

export interface IssuedKey {
  record: StoredKey;
  /** Shown once; only its sha256 is stored. */
  secret: string;
}

export interface KeyStore extends KeyVerifier {
  create(input: CreateKeyInput): Promise<IssuedKey>;
  list(): Promise<StoredKey[]>;
  get(id: string): Promise<StoredKey | undefined>;
  /** Undefined when no such key; revoking twice keeps the first time. */
  revoke(id: string): Promise<StoredKey | undefined>;
  /** New secret; the previous ones keep working for `graceSeconds`. Undefined when no live key has this id. */
  rotate(id: string, graceSeconds: number): Promise<IssuedKey | undefined>;
}

/** A secret's hash as found in storage, with its own end of validity (set by rotation). */
export interface HashMatch {
  key: StoredKey;
  hashExpiresAt?: number;
}

/** The persistence a KeyStore is built on (SQLite, PostgreSQL, memory). Hashes only, never secrets. */
export interface KeyBackend {
  insert(key: StoredKey, hash: string): Promise<void>;
  findByHash(hash: string): Promise<HashMatch | undefined>;
  list(): Promise<StoredKey[]>;
  get(id: string): Promise<StoredKey | undefined>;
  /** Sets revokedAt unless already set; returns the key as stored afterwards. */
  revoke(id: string, at: number): Promise<StoredKey | undefined>;
  /** Ends every current hash of a live key at `graceUntil` (or earlier), adds `hash`, updates the prefix. */
  rotate(id: string, hash: string, prefix: string, graceUntil: number): Promise<StoredKey | undefined>;
  close(): Promise<void>;
}

/** Tells every instance to forget cached verifications of a key (revoked or rotated). */
export interface KeyEvents {
  publish(keyId: string): Promise<void>;
  subscribe(listener: (keyId: string) => void): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Limits

/** One counter an admission must fit into. All counters of an admission succeed or none is taken. */
export interface Counter {
  /** e.g. `rpm:k_1a2b`; implementations add their own namespace. */
  name: string;
  /** Sliding window length; absent for a lifetime total such as a budget. */
  windowMs?: number;
  limit: number;
  /** Taken now; integers only (requests, tokens, nano-USD). */
  amount: number;
  /** Lifetime totals: the value to start from if the counter does not exist yet. */
  seed?: number;
}

export type Acquired =
  | { ok: true; at: number }
  /** `retryAfterMs` absent: waiting cannot help (the amount alone exceeds what is left for good). */
  | { ok: false; counter: string; retryAfterMs?: number };

export interface CounterChange {
  name: string;
  windowMs?: number;
  /** What acquire() took for this counter. */
  reserved: number;
  /** What the call really used (0 releases the reservation). */
  actual: number;
}

/** Atomic counters shared by every instance that uses the same limiter (Redis) or one process (memory). */
export interface RateLimiter {
  acquire(reservationId: string, counters: readonly Counter[]): Promise<Acquired>;
  /** Replaces reservations taken at `at` by the amounts really used. */
  settle(reservationId: string, at: number, changes: readonly CounterChange[]): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Usage

export interface CallInfo {
  requestId: string;
  /** Catalogue model id (not the upstream's name). */
  model: string;
  family: Family;
  estimatedInputTokens: number;
  maxOutputTokens: number;
}

export interface CallOutcome {
  provider?: string;
  upstreamModel?: string;
  /** HTTP status the client got (200 for a stream that started). */
  status: number;
  /** What the upstream reported (for an aborted stream: what was seen before the abort). */
  usage?: Usage;
  latencyMs: number;
  ttfbMs?: number;
  aborted: boolean;
}

export interface Reservation {
  /** Call exactly once when the response or stream ends; later calls are ignored. Never throws or blocks. */
  settle(outcome: CallOutcome): void;
}

export interface Meter {
  /**
   * Refuses with GatewayError('rate_limit', …, { retryAfter }) when a limit refuses the call. A key
   * with nothing to count is admitted synchronously; one with limits or a budget waits on the limiter.
   */
  admit(key: KeyRecord, call: CallInfo): MaybePromise<Reservation>;
}

export interface UsageRecord {
  requestId: string;
  /** Unix milliseconds when the call was admitted. */
  time: number;
  keyId: string;
  family: string;
  model: string;
  provider?: string;
  upstreamModel?: string;
  status: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Integer nano-USD so that sums stay exact. */
  costNanoUsd: number;
  latencyMs: number;
  ttfbMs?: number;
  aborted: boolean;
}

export interface UsageQuery {
  by: 'key' | 'model' | 'day';
  /** Unix milliseconds, inclusive; absent means from the beginning. */
  from?: number;
  /** Unix milliseconds, exclusive; absent means until now. */
  to?: number;
  keyId?: string;
}

export interface UsageSummaryRow {
  /** Key id, model id, or UTC day `YYYY-MM-DD`. */
  group: string;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export interface UsageStore {
  appendBatch(records: readonly UsageRecord[]): Promise<void>;
  /** Rows sorted by group. */
  summarize(query: UsageQuery): Promise<UsageSummaryRow[]>;
  close(): Promise<void>;
}

/** Where the meter drops records: sync, so settlement never waits for storage. */
export interface UsageSink {
  add(record: UsageRecord): void;
  /** Writes everything pending; call on graceful shutdown. */
  flush(): Promise<void>;
}
