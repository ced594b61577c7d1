import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryUsageStore } from '../../../core/accounting/memory-usage-store.ts';
import type { UsageRecord, UsageStore } from '../../../core/accounting/types.ts';
import { createUsageWriter } from '../../../core/accounting/usage-writer.ts';

const record = (i: number): UsageRecord => ({
  requestId: `r${i}`, time: 0, keyId: 'k', family: 'openai', model: 'm', status: 200, inputTokens: i, outputTokens: 0,
  cacheReadTokens: 0, cacheWriteTokens: 0, costNanoUsd: 0, latencyMs: 1, aborted: false,
});

function recordingStore(fail = () => false): UsageStore & { batches: number[] } {
  const inner = createMemoryUsageStore();
  const batches: number[] = [];
  return {
    ...inner,
    batches,
    async appendBatch(records) {
      if (fail()) throw new Error('down');
      batches.push(records.length);
      await inner.appendBatch(records);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('usage writer', () => {
  it('writes a batch as soon as maxRecords wait', async () => {
    const store = recordingStore();
    const writer = createUsageWriter(store, { maxRecords: 3, flushMs: 60_000 });
    for (let i = 0; i < 7; i++) writer.add(record(i));
    await vi.waitFor(() => expect(store.batches).toEqual([3, 3]));
    expect(writer.pending()).toBe(1);
    await writer.flush();
    expect(store.batches).toEqual([3, 3, 1]);
  });

  it('writes what waits after flushMs', async () => {
    vi.useFakeTimers();
    const store = recordingStore();
    const writer = createUsageWriter(store, { maxRecords: 100, flushMs: 500 });
    writer.add(record(1));
    writer.add(record(2));
    await vi.advanceTimersByTimeAsync(499);
    expect(store.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.batches).toEqual([2]);
  });

  it('loses nothing on flush, even after failed writes', async () => {
    let failing = true;
    const errors: unknown[] = [];
    const store = recordingStore(() => failing);
    const writer = createUsageWriter(store, { maxRecords: 2, flushMs: 10, onError: (e) => errors.push(e) });
    for (let i = 0; i < 5; i++) writer.add(record(i));
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
    await expect(writer.flush()).rejects.toThrow('down');
    failing = false;
    await writer.flush();
    const summary = await store.summarize({ by: 'key' });
    expect(summary).toEqual([{ group: 'k', requests: 5, errors: 0, inputTokens: 0 + 1 + 2 + 3 + 4, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }]);
    expect(writer.pending()).toBe(0);
  });

  it('keeps at most maxPending records while storage is down', async () => {
    const errors: unknown[] = [];
    const store = recordingStore(() => true);
    const writer = createUsageWriter(store, { maxRecords: 2, flushMs: 10_000, maxPending: 3, onError: (e) => errors.push(e) });
    for (let i = 0; i < 6; i++) writer.add(record(i));
    await vi.waitFor(() => expect(writer.pending()).toBeLessThanOrEqual(3));
    await writer.flush().catch(() => {});
    expect(writer.pending()).toBe(3);
    expect(errors.some((e) => String(e).includes('dropped'))).toBe(true);
  });
});
