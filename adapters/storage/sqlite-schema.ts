import type { SqliteDb } from './sqlite-driver.ts';

/** Idempotent: runs on every start, creating what is missing. */
export function createSqliteSchema(db: SqliteDb): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS sy_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  models TEXT,
  rpm INTEGER,
  tpm INTEGER,
  budget_usd REAL
);
CREATE TABLE IF NOT EXISTS sy_key_hashes (
  hash TEXT PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES sy_keys(id),
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS sy_key_hashes_key ON sy_key_hashes(key_id);
CREATE TABLE IF NOT EXISTS sy_usage (
  request_id TEXT NOT NULL,
  time INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  family TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT,
  upstream_model TEXT,
  status INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  cost_nano_usd INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL,
  ttfb_ms INTEGER,
  aborted INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sy_usage_time ON sy_usage(time);
CREATE INDEX IF NOT EXISTS sy_usage_key_time ON sy_usage(key_id, time);
`);
}
