import { addRecord, summarizeRecords, totalsFor, utcDay, type UsageTotals } from './summarize.ts';
import type { UsageRecord, UsageStore } from './types.ts';

/** Enough history for tests and a look at recent traffic, without growing with every call. */
export const MEMORY_USAGE_LIMIT = 10_000;

const DAY_MS = 86_400_000;

/**
 * Usage in process memory: for tests, benchmarks and `storage.kind = "memory"`. It keeps the most
 * recent `limit` records; older ones are folded into one total per key, model and UTC day, so
 * memory stays flat however long the process runs while budgets and all-time summaries stay exact.
 * A folded record counts as made at the start of its day for `from`/`to`. Durable accounting is
 * what SQLite and PostgreSQL are for.
 */
export function createMemoryUsageStore(limit = MEMORY_USAGE_LIMIT): UsageStore & { readonly records: readonly UsageRecord[] } {
  let records: UsageRecord[] = [];
  const folded = new Map<string, UsageTotals>();

  const fold = (record: UsageRecord) => {
    const id = `${record.keyId}\n${record.model}\n${utcDay(record.time)}`;
    let totals = folded.get(id);
    if (!totals) folded.set(id, (totals = totalsFor(record, Math.floor(record.time / DAY_MS) * DAY_MS)));
    addRecord(totals, record);
  };

  return {
    get records() {
      return records;
    },
    async appendBatch(batch) {
      for (const record of batch) records.push({ ...record });
      // Trims in bulk (at 1.5× the limit) so appends stay amortised O(1).
      if (records.length > limit * 1.5) {
        const cut = records.length - limit;
        for (let i = 0; i < cut; i++) fold(records[i]!);
        records = records.slice(cut);
      }
    },
    async summarize(query) {
      return summarizeRecords(records, query, folded.values());
    },
    async close() {},
  };
}
