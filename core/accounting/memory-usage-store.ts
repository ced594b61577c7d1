import { summarizeRecords } from './summarize.ts';
import type { UsageRecord, UsageStore } from './types.ts';

/** Enough history for tests and a look at recent traffic, without growing with every call. */
export const MEMORY_USAGE_LIMIT = 100_000;

/**
 * Usage in process memory: for tests and `storage.kind = "memory"`. It keeps the most recent
 * `limit` records only (summaries cover those), so a long-running process does not grow by a
 * record per call; durable accounting is what SQLite and PostgreSQL are for.
 */
export function createMemoryUsageStore(limit = MEMORY_USAGE_LIMIT): UsageStore & { readonly records: readonly UsageRecord[] } {
  let records: UsageRecord[] = [];
  return {
    get records() {
      return records;
    },
    async appendBatch(batch) {
      for (const record of batch) records.push({ ...record });
      // Trims in bulk (at 1.5× the limit) so appends stay amortised O(1).
      if (records.length > limit * 1.5) records = records.slice(records.length - limit);
    },
    async summarize(query) {
      return summarizeRecords(records, query);
    },
    async close() {},
  };
}
