import { summarizeRecords } from './summarize.ts';
import type { UsageRecord, UsageStore } from './types.ts';

/** Usage in process memory: for tests and `storage.kind = "memory"`. */
export function createMemoryUsageStore(): UsageStore & { readonly records: readonly UsageRecord[] } {
  const records: UsageRecord[] = [];
  return {
    records,
    async appendBatch(batch) {
      records.push(...batch.map((r) => ({ ...r })));
    },
    async summarize(query) {
      return summarizeRecords(records, query);
    },
    async close() {},
  };
}
