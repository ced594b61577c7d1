import { addRecord, summarizeRecords, totalsFor, type UsageTotals } from './summarize.ts';
import type { UsageRecord, UsageStore } from './types.ts';
import { UsageRing } from './usage-ring.ts';

/** Enough history for tests and a look at recent traffic, without growing with every call. */
export const MEMORY_USAGE_LIMIT = 10_000;

const DAY_MS = 86_400_000;

/**
 * Usage in process memory: for tests, benchmarks and `storage.kind = "memory"`. It keeps the most
 * recent `limit` records (in columns, see UsageRing); older ones are folded into one total per
 * key, model and UTC day, so memory stays flat however long the process runs while budgets and
 * all-time summaries stay exact. A folded record counts as made at the start of its day for
 * `from`/`to`. Durable accounting is what SQLite and PostgreSQL are for.
 */
export function createMemoryUsageStore(limit = MEMORY_USAGE_LIMIT): UsageStore & { readonly records: readonly UsageRecord[] } {
  const recent = new UsageRing(limit);
  const folded = new Map<string, UsageTotals>();

  // Once the ring is full, every call folds one record: its UTC day as a number, not a formatted date.
  const fold = (record: UsageRecord) => {
    const day = Math.floor(record.time / DAY_MS);
    const id = `${record.keyId}\n${record.model}\n${day}`;
    let totals = folded.get(id);
    if (!totals) folded.set(id, (totals = totalsFor(record, day * DAY_MS)));
    addRecord(totals, record);
  };

  return {
    /** The kept records, oldest first (copies: for tests and a look at recent traffic). */
    get records() {
      return [...recent];
    },
    async appendBatch(batch) {
      for (const record of batch) recent.push(record, fold);
    },
    async summarize(query) {
      return summarizeRecords(recent, query, folded.values());
    },
    async close() {},
  };
}
