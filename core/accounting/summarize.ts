import { nanoToUsd } from './prices.ts';
import type { UsageQuery, UsageRecord, UsageSummaryRow } from './types.ts';

/** UTC calendar day of a Unix-milliseconds time, as `YYYY-MM-DD`. */
export const utcDay = (time: number): string => new Date(time).toISOString().slice(0, 10);

export function groupOf(record: UsageRecord, by: UsageQuery['by']): string {
  return by === 'key' ? record.keyId : by === 'model' ? record.model : utcDay(record.time);
}

export function matchesQuery(record: UsageRecord, query: UsageQuery): boolean {
  if (query.keyId !== undefined && record.keyId !== query.keyId) return false;
  if (query.from !== undefined && record.time < query.from) return false;
  return query.to === undefined || record.time < query.to;
}

/** The reference aggregation; the SQL stores compute the same rows with GROUP BY. */
export function summarizeRecords(records: Iterable<UsageRecord>, query: UsageQuery): UsageSummaryRow[] {
  const rows = new Map<string, UsageSummaryRow & { nano: number }>();
  for (const record of records) {
    if (!matchesQuery(record, query)) continue;
    const group = groupOf(record, query.by);
    let row = rows.get(group);
    if (!row) {
      row = { group, requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, nano: 0 };
      rows.set(group, row);
    }
    row.requests++;
    if (record.status >= 400) row.errors++;
    row.inputTokens += record.inputTokens;
    row.outputTokens += record.outputTokens;
    row.cacheReadTokens += record.cacheReadTokens;
    row.cacheWriteTokens += record.cacheWriteTokens;
    row.nano += record.costNanoUsd;
  }
  return [...rows.values()]
    .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0))
    .map(({ nano, ...row }) => ({ ...row, costUsd: nanoToUsd(nano) }));
}
