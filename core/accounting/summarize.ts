import { nanoToUsd } from './prices.ts';
import type { UsageQuery, UsageRecord, UsageSummaryRow } from './types.ts';

/** UTC calendar day of a Unix-milliseconds time, as `YYYY-MM-DD`. */
const utcDay = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** What a query filters and groups on. */
type Placed = Pick<UsageRecord, 'keyId' | 'model' | 'time'>;

/** Counters a summary row adds up, with cost kept in integer nano-USD until the end. */
export type UsageCounts = Omit<UsageSummaryRow, 'group' | 'costUsd'> & { costNanoUsd: number };

/** Sums of many records that share a key, a model and a time (the memory store's folded history). */
export type UsageTotals = Placed & UsageCounts;

const emptyCounts = (): UsageCounts => ({ requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costNanoUsd: 0 });

export function groupOf(record: Placed, by: UsageQuery['by']): string {
  return by === 'key' ? record.keyId : by === 'model' ? record.model : utcDay(record.time);
}

export function matchesQuery(record: Placed, query: UsageQuery): boolean {
  if (query.keyId !== undefined && record.keyId !== query.keyId) return false;
  if (query.from !== undefined && record.time < query.from) return false;
  return query.to === undefined || record.time < query.to;
}

/** Adds one record to `counts` and returns them. */
export function addRecord<C extends UsageCounts>(counts: C, record: UsageRecord): C {
  counts.requests++;
  if (record.status >= 400) counts.errors++;
  counts.inputTokens += record.inputTokens;
  counts.outputTokens += record.outputTokens;
  counts.cacheReadTokens += record.cacheReadTokens;
  counts.cacheWriteTokens += record.cacheWriteTokens;
  counts.costNanoUsd += record.costNanoUsd;
  return counts;
}

/** Adds `more` into `counts`. */
function addCounts(counts: UsageCounts, more: UsageCounts): void {
  counts.requests += more.requests;
  counts.errors += more.errors;
  counts.inputTokens += more.inputTokens;
  counts.outputTokens += more.outputTokens;
  counts.cacheReadTokens += more.cacheReadTokens;
  counts.cacheWriteTokens += more.cacheWriteTokens;
  counts.costNanoUsd += more.costNanoUsd;
}

/** Zeroed totals placed at `record`'s key and model and at `time`. */
export function totalsFor(record: UsageRecord, time: number): UsageTotals {
  return { keyId: record.keyId, model: record.model, time, ...emptyCounts() };
}

/** The reference aggregation; the SQL stores compute the same rows with GROUP BY. */
export function summarizeRecords(
  records: Iterable<UsageRecord>,
  query: UsageQuery,
  folded: Iterable<UsageTotals> = [],
): UsageSummaryRow[] {
  const rows = new Map<string, UsageCounts>();
  const rowOf = (placed: Placed) => {
    const group = groupOf(placed, query.by);
    let row = rows.get(group);
    if (!row) rows.set(group, (row = emptyCounts()));
    return row;
  };
  for (const totals of folded) if (matchesQuery(totals, query)) addCounts(rowOf(totals), totals);
  for (const record of records) if (matchesQuery(record, query)) addRecord(rowOf(record), record);
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([group, t]) => ({
      group, requests: t.requests, errors: t.errors, inputTokens: t.inputTokens, outputTokens: t.outputTokens,
      cacheReadTokens: t.cacheReadTokens, cacheWriteTokens: t.cacheWriteTokens, costUsd: nanoToUsd(t.costNanoUsd),
    }));
}
