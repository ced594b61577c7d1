import postgres from 'postgres';
import type { KeyBackend, UsageStore } from '../../core/accounting/types.ts';
import { KEY_COLUMNS, keyToValues, readSummaryRow, rowToKey, SUMMARY_SELECT, USAGE_COLUMNS, usageToValues, type KeyRow, type SummaryRow } from './sql-rows.ts';

export interface PostgresOptions {
  url: string;
  /** Lower-case identifier (validated by the configuration schema). */
  schema: string;
  maxConnections: number;
}

type Sql = postgres.Sql;
type Param = string | number | null;

/**
 * Keys and usage in PostgreSQL, shared by every instance pointed at the same database. The
 * schema is created on first start under an advisory lock so that instances starting together
 * do not race on CREATE TABLE.
 */
export async function openPostgresStorage(options: PostgresOptions): Promise<{ keys: KeyBackend; usage: UsageStore; close(): Promise<void> }> {
  if (!/^[a-z_][a-z0-9_]*$/.test(options.schema)) throw new Error(`invalid PostgreSQL schema name "${options.schema}"`);
  const sql: Sql = postgres(options.url, { max: options.maxConnections, onnotice: () => {}, idle_timeout: 60 });
  const s = `"${options.schema}"`;
  await createSchema(sql, options.schema);
  // Prepared on first use per connection: the hot path (findByHash) then skips parsing.
  const q = <T>(text: string, params: Param[] = []) => sql.unsafe(text, params, { prepare: true }) as unknown as Promise<T[]>;
  const getKey = async (id: string) => {
    const [row] = await q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM ${s}.sy_keys WHERE id = $1`, [id]);
    return row && rowToKey(row);
  };

  const keys: KeyBackend = {
    async insert(key, hash) {
      await sql.begin(async (tx) => {
        await tx.unsafe(`INSERT INTO ${s}.sy_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, keyToValues(key));
        await tx.unsafe(`INSERT INTO ${s}.sy_key_hashes (hash, key_id, expires_at) VALUES ($1, $2, NULL)`, [hash, key.id]);
      });
    },
    async findByHash(hash) {
      const [row] = await q<KeyRow & { hash_expires_at: string | null }>(
        `SELECT ${KEY_COLUMNS.split(', ').map((c) => `k.${c}`).join(', ')}, h.expires_at AS hash_expires_at
         FROM ${s}.sy_key_hashes h JOIN ${s}.sy_keys k ON k.id = h.key_id WHERE h.hash = $1`,
        [hash],
      );
      if (!row) return undefined;
      return row.hash_expires_at === null ? { key: rowToKey(row) } : { key: rowToKey(row), hashExpiresAt: Number(row.hash_expires_at) };
    },
    async list() {
      return (await q<KeyRow>(`SELECT ${KEY_COLUMNS} FROM ${s}.sy_keys ORDER BY created_at, id`)).map(rowToKey);
    },
    get: getKey,
    async revoke(id, at) {
      await q(`UPDATE ${s}.sy_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [at, id]);
      return getKey(id);
    },
    async rotate(id, hash, prefix, graceUntil) {
      const rotated = await sql.begin(async (tx) => {
        const updated = await tx.unsafe(`UPDATE ${s}.sy_keys SET prefix = $1 WHERE id = $2 AND revoked_at IS NULL`, [prefix, id]);
        if (updated.count === 0) return false;
        await tx.unsafe(`UPDATE ${s}.sy_key_hashes SET expires_at = least(coalesce(expires_at, $1), $1) WHERE key_id = $2`, [graceUntil, id]);
        await tx.unsafe(`INSERT INTO ${s}.sy_key_hashes (hash, key_id, expires_at) VALUES ($1, $2, NULL)`, [hash, id]);
        return true;
      });
      return rotated ? getKey(id) : undefined;
    },
    async close() {},
  };

  const groups = { key: 'key_id', model: 'model', day: `to_char(to_timestamp(time / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')` } as const;
  const columns = USAGE_COLUMNS.split(', ');
  const usage: UsageStore = {
    async appendBatch(records) {
      if (records.length === 0) return;
      const params: Param[] = [];
      const rows = records.map((record) => {
        const values = usageToValues(record);
        const placeholders = values.map((value) => `$${params.push(value)}`);
        return `(${placeholders.join(', ')})`;
      });
      await sql.unsafe(`INSERT INTO ${s}.sy_usage (${columns.join(', ')}) VALUES ${rows.join(', ')}`, params);
    },
    async summarize({ by, from, to, keyId }) {
      const where: string[] = [];
      const params: Param[] = [];
      if (from !== undefined) where.push(`time >= $${params.push(from)}`);
      if (to !== undefined) where.push(`time < $${params.push(to)}`);
      if (keyId !== undefined) where.push(`key_id = $${params.push(keyId)}`);
      const rows = await sql.unsafe(
        `SELECT (${groups[by]}) COLLATE "C" AS grp, ${SUMMARY_SELECT} FROM ${s}.sy_usage
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY grp ORDER BY grp`,
        params,
      );
      return (rows as unknown as SummaryRow[]).map(readSummaryRow);
    },
    async close() {},
  };

  return { keys, usage, close: () => sql.end({ timeout: 5 }) };
}

async function createSchema(sql: Sql, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`switchyard-schema:${schema}`}))`;
    const statements = [
      `CREATE SCHEMA IF NOT EXISTS ${s}`,
      `CREATE TABLE IF NOT EXISTS ${s}.sy_keys (
        id text PRIMARY KEY, name text NOT NULL, prefix text NOT NULL, created_at bigint NOT NULL,
        expires_at bigint, revoked_at bigint, models text, rpm integer, tpm integer, budget_usd double precision)`,
      `CREATE TABLE IF NOT EXISTS ${s}.sy_key_hashes (
        hash text PRIMARY KEY, key_id text NOT NULL REFERENCES ${s}.sy_keys(id), expires_at bigint)`,
      `CREATE INDEX IF NOT EXISTS sy_key_hashes_key ON ${s}.sy_key_hashes (key_id)`,
      `CREATE TABLE IF NOT EXISTS ${s}.sy_usage (
        request_id text NOT NULL, time bigint NOT NULL, key_id text NOT NULL, family text NOT NULL, model text NOT NULL,
        provider text, upstream_model text, status integer NOT NULL, input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,
        cache_read_tokens bigint NOT NULL, cache_write_tokens bigint NOT NULL, cost_nano_usd bigint NOT NULL,
        latency_ms integer NOT NULL, ttfb_ms integer, aborted smallint NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS sy_usage_time ON ${s}.sy_usage (time)`,
      `CREATE INDEX IF NOT EXISTS sy_usage_key_time ON ${s}.sy_usage (key_id, time)`,
    ];
    for (const statement of statements) await tx.unsafe(statement);
  });
}
