import type { StoredKey, UsageRecord } from '../../core/accounting/types.ts';

/** A `sy_keys` row as both SQL stores return it (times in Unix milliseconds). */
export interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  models: string | null;
  rpm: number | null;
  tpm: number | null;
  budget_usd: number | null;
}

export const KEY_COLUMNS = 'id, name, prefix, created_at, expires_at, revoked_at, models, rpm, tpm, budget_usd';

export function rowToKey(row: KeyRow): StoredKey {
  const key: StoredKey = { id: row.id, name: row.name, prefix: row.prefix, createdAt: Number(row.created_at) };
  if (row.expires_at !== null) key.expiresAt = Number(row.expires_at);
  if (row.revoked_at !== null) key.revokedAt = Number(row.revoked_at);
  if (row.models !== null) key.models = JSON.parse(row.models) as string[];
  if (row.rpm !== null) key.rpm = Number(row.rpm);
  if (row.tpm !== null) key.tpm = Number(row.tpm);
  if (row.budget_usd !== null) key.budgetUsd = Number(row.budget_usd);
  return key;
}

export function keyToValues(key: StoredKey): Array<string | number | null> {
  return [
    key.id,
    key.name,
    key.prefix,
    key.createdAt,
    key.expiresAt ?? null,
    key.revokedAt ?? null,
    key.models ? JSON.stringify(key.models) : null,
    key.rpm ?? null,
    key.tpm ?? null,
    key.budgetUsd ?? null,
  ];
}

export const USAGE_COLUMNS =
  'request_id, time, key_id, family, model, provider, upstream_model, status, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_nano_usd, latency_ms, ttfb_ms, aborted';

export function usageToValues(r: UsageRecord): Array<string | number | null> {
  return [
    r.requestId,
    r.time,
    r.keyId,
    r.family,
    r.model,
    r.provider ?? null,
    r.upstreamModel ?? null,
    r.status,
    r.inputTokens,
    r.outputTokens,
    r.cacheReadTokens,
    r.cacheWriteTokens,
    r.costNanoUsd,
    r.latencyMs,
    r.ttfbMs ?? null,
    r.aborted ? 1 : 0,
  ];
}

/** Summary rows as SQL returns them (sums may arrive as strings or bigints). */
export interface SummaryRow {
  grp: string;
  requests: number | string;
  errors: number | string;
  input_tokens: number | string;
  output_tokens: number | string;
  cache_read_tokens: number | string;
  cache_write_tokens: number | string;
  cost_nano_usd: number | string;
}

export function readSummaryRow(row: SummaryRow) {
  return {
    group: String(row.grp),
    requests: Number(row.requests),
    errors: Number(row.errors),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    costUsd: Number(row.cost_nano_usd) / 1e9,
  };
}

export const SUMMARY_SELECT = `count(*) AS requests,
  sum(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors,
  sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
  sum(cost_nano_usd) AS cost_nano_usd`;
