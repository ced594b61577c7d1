import * as v from 'valibot';

const NonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));
const UsdPerMillion = v.pipe(v.number(), v.minValue(0, 'must be USD per million tokens, >= 0'));
const Millis = v.pipe(v.number(), v.integer(), v.minValue(0));

const Price = v.strictObject({
  input: UsdPerMillion,
  output: UsdPerMillion,
  cacheRead: v.optional(UsdPerMillion),
  cacheWrite: v.optional(UsdPerMillion),
});

const Storage = v.variant('kind', [
  v.strictObject({ kind: v.literal('memory') }),
  /** The embedded default: one file, created with its directory on first start. */
  v.strictObject({ kind: v.literal('sqlite'), path: v.optional(NonEmpty, './data/switchyard.db') }),
  v.strictObject({
    kind: v.literal('postgres'),
    url: v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')),
    /** Tables live in this schema (created if missing). */
    schema: v.optional(v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')), 'public'),
    maxConnections: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 10),
  }),
]);

const Admin = v.pipe(
  v.strictObject({
    /** Compared by sha256; never accepted as a user key. */
    token: v.optional(v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'))),
    sha256: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits'))),
  }),
  v.check((a) => (a.token === undefined) !== (a.sha256 === undefined), 'needs exactly one of "token" or "sha256"'),
);

/**
 * The accounting part of the configuration, as entries to spread into GatewayConfig's
 * strictObject. All optional: without them Switchyard runs on static keys only. This file imports
 * nothing but valibot, so core/config.ts can import it without a cycle.
 */
export const AccountingConfigEntries = {
  storage: v.optional(Storage),
  /** Shared rate limits and instant revocation across instances; in-memory limits without it. */
  redis: v.optional(
    v.strictObject({
      url: v.pipe(v.string(), v.regex(/^rediss?:\/\//, 'must be a redis:// URL')),
      prefix: v.optional(v.string(), 'switchyard:'),
    }),
  ),
  admin: v.optional(Admin),
  /** USD per million tokens per catalogue model id; a key with a budget may only call priced models. */
  prices: v.optional(v.record(NonEmpty, Price), {}),
  /** How long a verified key is trusted without asking storage: the longest a revocation takes without Redis. */
  keyCacheTtlMs: v.optional(Millis, 5000),
  /** Default grace period of a rotated key's old secret. */
  rotateGraceSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 86_400),
  usageBatch: v.optional(
    v.strictObject({
      maxRecords: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 100),
      flushMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1000),
    }),
    {},
  ),
};

export const AccountingConfig = v.object(AccountingConfigEntries);
export type AccountingConfig = v.InferOutput<typeof AccountingConfig>;
export type AccountingConfigInput = v.InferInput<typeof AccountingConfig>;
export type StorageConfig = NonNullable<AccountingConfig['storage']>;
