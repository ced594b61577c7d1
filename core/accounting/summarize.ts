import { nanoToUsd } from './prices.ts';
import type { UsageQuery, UsageRecord, UsageSummaryRow } from './types.ts';

/** UTC calendar day of a Unix-milliseconds time, as `YYYY-MM-DD`. */
export const utcDay = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** What a query filters and groups on. */
type Placed = Pick<UsageRecord, 'keyId' | 'model' | 'time'>;

/** Sums of many records that share a key, a model and a time (the memory store's folded history). */
export interface UsageTotals extends Placed {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costNanoUsd: number;
}

export function groupOf(record: Placed, by: UsageQuery['by']): string {
  return by === 'key' ? record.keyId : by === 'model' ? record.model : utcDay(record.time);
}

export function matchesQuery(record: Placed, query: UsageQuery): boolean {
  if (query.keyId !== undefined && record.keyId !== query.keyId) return false;
  if (query.from !== undefined && record.time < query.from) return false;
  return query.to === undefined || record.time < query.to;
}

/** Adds one record to totals (created from it when absent) and returns them. */
export function addToTotals(totals: UsageTotals | undefined, record: UsageRecord, time = record.time): UsageTotals {
  const t = totals ?? {
    keyId: record.keyId, model: record.model, time,
    requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costNanoUsd: 0,
  };
  t.requests++;
  if (record.status >= 400) t.errors++;
  t.inputTokens += record.inputTokens;
  t.outputTokens += record.outputTokens;
  t.cacheReadTokens += record.cacheReadTokens;
  t.cacheWriteTokens += record.cacheWriteTokens;
  t.costNanoUsd += record.costNanoUsd;
  return t;
}

/** The reference aggregation; the SQL stores compute the same rows with GROUP BY. */
export function summarizeRecords(
  records: Iterable<UsageRecord>,
  query: UsageQuery,
  folded: Iterable<UsageTotals> = [],
): UsageSummaryRow[] {
  const rows = new Map<string, UsageTotals>();
  const rowOf = (placed: Placed) => {
    const group = groupOf(placed, query.by);
    let row = rows.get(group);
    if (!row) {
      row = { keyId: group, model: group, time: 0, requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costNanoUsd: 0 };
      rows.set(group, row);
    }
    return row;
  };
  for (const totals of folded) {
    if (!matchesQuery(totals, query)) continue;
    const row = rowOf(totals);
    row.requests += totals.requests;
    row.errors += totals.errors;
    row.inputTokens += totals.inputTokens;
    row.outputTokens += totals.outputTokens;
    row.cacheReadTokens += totals.cacheReadTokens;
    row.cacheWriteTokens += totals.cacheWriteTokens;
    row.costNanoUsd += totals.costNanoUsd;
  }
  for (const record of records) {
    if (matchesQuery(record, query)) addToTotals(rowOf(record), record);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([group, t]) => ({
      group, requests: t.requests, errors: t.errors, inputTokens: t.inputTokens, outputTokens: t.outputTokens,
      cacheReadTokens: t.cacheReadTokens, cacheWriteTokens: t.cacheWriteTokens, costUsd: nanoToUsd(t.costNanoUsd),
    }));
}
