import { describe, expect, it } from 'vitest';
import { createMemoryUsageStore } from '../../../core/accounting/memory-usage-store.ts';
import type { UsageRecord } from '../../../core/accounting/types.ts';

const record = (n: number): UsageRecord => ({
  requestId: `req_${n}`, time: n, keyId: 'k', family: 'anthropic', model: 'm', status: 200,
  inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costNanoUsd: 0, latencyMs: 1, aborted: false,
});

describe('memory usage store', () => {
  it('keeps only the most recent records, so a long run does not grow without bound', async () => {
    const store = createMemoryUsageStore(10);
    for (let n = 0; n < 100; n++) await store.appendBatch([record(n)]);
    expect(store.records.length).toBeLessThanOrEqual(15);
    expect(store.records.at(-1)!.requestId).toBe('req_99');
    expect(store.records[0]!.time).toBeGreaterThanOrEqual(85);
    const [row] = await store.summarize({ by: 'key' });
    expect(row!.requests).toBe(store.records.length);
  });
});
