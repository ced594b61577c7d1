import { describe, expect, it } from 'vitest';
import { createMemoryUsageStore } from '../../../core/accounting/memory-usage-store.ts';
import { summarizeRecords } from '../../../core/accounting/summarize.ts';
import type { UsageRecord } from '../../../core/accounting/types.ts';

const DAY = 86_400_000;

const record = (n: number, over: Partial<UsageRecord> = {}): UsageRecord => ({
  requestId: `req_${n}`, time: n, keyId: 'k', family: 'anthropic', model: 'm', status: 200,
  inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costNanoUsd: 0, latencyMs: 1, aborted: false,
  ...over,
});

describe('memory usage store', () => {
  it('keeps only the most recent records, so a long run does not grow without bound', async () => {
    const store = createMemoryUsageStore(10);
    for (let n = 0; n < 100; n++) await store.appendBatch([record(n)]);
    expect(store.records.length).toBeLessThanOrEqual(15);
    expect(store.records.at(-1)!.requestId).toBe('req_99');
    expect(store.records[0]!.time).toBeGreaterThanOrEqual(85);
  });

  it('folds older records into per-key, per-model, per-day totals: summaries and budgets stay exact', async () => {
    const all: UsageRecord[] = [];
    for (let n = 0; n < 200; n++) {
      all.push(record(n, {
        time: Math.floor(n / 50) * DAY + n, // four days, 50 records each
        keyId: n % 3 ? 'a' : 'b',
        model: n % 2 ? 'm1' : 'm2',
        status: n % 7 ? 200 : 500,
        inputTokens: n, outputTokens: 2 * n, cacheReadTokens: n % 5, cacheWriteTokens: n % 4, costNanoUsd: 1000 * n,
      }));
    }
    const store = createMemoryUsageStore(20);
    for (let i = 0; i < all.length; i += 7) await store.appendBatch(all.slice(i, i + 7));
    expect(store.records.length).toBeLessThanOrEqual(30);
    for (const by of ['key', 'model', 'day'] as const) {
      expect(await store.summarize({ by })).toEqual(summarizeRecords(all, { by }));
      expect(await store.summarize({ by, keyId: 'b' })).toEqual(summarizeRecords(all, { by, keyId: 'b' }));
      // Whole-day ranges are exact too: folded records sit at the start of their day.
      const range = { by, from: DAY, to: 3 * DAY };
      expect(await store.summarize(range)).toEqual(summarizeRecords(all, range));
    }
  });
});
