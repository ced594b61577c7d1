import { describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../../core/accounting/types.ts';
import { UsageRing } from '../../../core/accounting/usage-ring.ts';

const record = (n: number, over: Partial<UsageRecord> = {}): UsageRecord => ({
  requestId: `req_${n}`, time: 1_760_000_000_000 + n, keyId: `k${n % 3}`, family: n % 2 ? 'anthropic' : 'gemini', model: `m${n % 4}`,
  status: n % 5 ? 200 : 529, inputTokens: 1000 * n, outputTokens: 7 * n + 1, cacheReadTokens: n % 6, cacheWriteTokens: n % 7,
  costNanoUsd: 123_456_789 * n, latencyMs: n + 0.25, aborted: n % 9 === 0,
  ...over,
});

describe('usage ring', () => {
  it('gives back every field as it was given, absent optional fields staying absent', () => {
    const ring = new UsageRing(8);
    const given = [
      record(1),
      record(2, { provider: 'anthropic-main', upstreamModel: 'claude-sonnet-4-5', ttfbMs: 12.5 }),
      record(3, { provider: 'groq', ttfbMs: 0 }),
      record(4, { inputTokens: 3_000_000_000, costNanoUsd: 2 ** 52, status: 499 }),
    ];
    for (const r of given) ring.push(r);
    const back = [...ring];
    expect(back).toStrictEqual(given);
    expect('provider' in back[0]!).toBe(false);
    expect('ttfbMs' in back[0]!).toBe(false);
  });

  it('keeps the newest records in order and hands each overwritten one to the caller, oldest first', () => {
    const ring = new UsageRing(5);
    const evicted: UsageRecord[] = [];
    for (let n = 0; n < 13; n++) ring.push(record(n), (old) => evicted.push(old));
    expect(ring.size).toBe(5);
    expect([...ring]).toStrictEqual([8, 9, 10, 11, 12].map((n) => record(n)));
    expect(evicted).toStrictEqual([0, 1, 2, 3, 4, 5, 6, 7].map((n) => record(n)));
  });

  it('is empty until something is pushed, and a partly filled ring reads from its start', () => {
    const ring = new UsageRing(4);
    expect([...ring]).toEqual([]);
    ring.push(record(1));
    ring.push(record(2));
    expect([...ring].map((r) => r.requestId)).toEqual(['req_1', 'req_2']);
  });
});
