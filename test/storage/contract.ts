import * as v from 'valibot';
import { expect, it } from 'vitest';
import { AccountingConfig, type AccountingConfigInput } from '../../core/accounting/config.ts';
import { summarizeRecords } from '../../core/accounting/summarize.ts';
import type { UsageQuery, UsageRecord } from '../../core/accounting/types.ts';
import type { Storage } from '../../adapters/storage/open-storage.ts';

export const accountingConfig = (input: AccountingConfigInput): AccountingConfig => v.parse(AccountingConfig, input);

const DAY = 86_400_000;
const BASE = Date.parse('2026-02-01T00:00:00Z');

export function usageRecords(): UsageRecord[] {
  const out: UsageRecord[] = [];
  for (let i = 0; i < 40; i++) {
    out.push({
      requestId: `req_${i}`,
      time: BASE + (i % 4) * DAY + i * 1000 + (i === 7 ? DAY - 1001 - 7000 : 0), // one lands on a day's last second
      keyId: i % 3 === 0 ? 'key_a' : 'key_b',
      family: ['openai', 'anthropic', 'gemini'][i % 3]!,
      model: i % 2 ? 'claude' : 'gpt',
      ...(i % 5 && { provider: 'up', upstreamModel: `up-${i % 2}` }),
      status: i % 7 === 0 ? 429 : 200,
      inputTokens: 100 + i,
      outputTokens: 10 * i,
      cacheReadTokens: i % 2 ? 1000 : 0,
      cacheWriteTokens: i % 4 === 1 ? 50 : 0,
      costNanoUsd: 123_456_789 * (i + 1),
      latencyMs: 100 + i,
      ...(i % 2 && { ttfbMs: 10 + i }),
      aborted: i % 9 === 0,
    });
  }
  return out;
}

/**
 * The same expectations for every key and usage store: what one backend does, all do. `open`
 * returns a fresh Storage on an empty store each time it is called with `fresh`, and a second
 * handle on the same store otherwise.
 */
export function storageContract(open: (fresh: boolean) => Promise<Storage>): void {
  it('keys: create, list, get, verify, rotate with grace, revoke', async () => {
    const s = await open(true);
    const other = await open(false);
    try {
      const a = await s.keys.create({ name: 'a', models: ['m1', 'm2'], rpm: 5, tpm: 1000, budgetUsd: 2.5, expiresAt: Date.now() + 3_600_000 });
      const b = await s.keys.create({ name: 'b' });
      expect(a.secret).toMatch(/^sy-[0-9a-f]{48}$/);
      expect(await other.keys.list()).toEqual([a.record, b.record].sort((x, y) => x.createdAt - y.createdAt || x.id.localeCompare(y.id)));
      expect(await other.keys.get(a.record.id)).toEqual(a.record);
      expect(await other.keys.get('key_none')).toBeUndefined();
      expect(await other.keys.verify(a.secret)).toEqual({ id: a.record.id, models: new Set(['m1', 'm2']), rpm: 5, tpm: 1000, budgetUsd: 2.5, expiresAt: a.record.expiresAt });
      expect(await other.keys.verify(b.secret)).toEqual({ id: b.record.id });
      expect(await other.keys.verify('sy-000000000000000000000000000000000000000000000000')).toBeUndefined();

      const rotated = (await s.keys.rotate(a.record.id, 3600))!;
      expect(rotated.record).toEqual({ ...a.record, prefix: rotated.secret.slice(0, 10) });
      expect((await s.keys.verify(a.secret))?.id).toBe(a.record.id);
      expect((await s.keys.verify(rotated.secret))?.id).toBe(a.record.id);
      const again = (await s.keys.rotate(a.record.id, 0))!;
      expect(await s.keys.verify(a.secret)).toBeUndefined();
      expect(await s.keys.verify(rotated.secret)).toBeUndefined();
      expect((await s.keys.verify(again.secret))?.id).toBe(a.record.id);

      const revoked = await s.keys.revoke(a.record.id);
      expect(revoked).toEqual({ ...again.record, revokedAt: expect.any(Number) });
      expect(await s.keys.verify(again.secret)).toBeUndefined();
      expect(await s.keys.rotate(a.record.id, 60)).toBeUndefined();
      expect(await s.keys.revoke('key_none')).toBeUndefined();
      expect((await s.keys.verify(b.secret))?.id).toBe(b.record.id);
    } finally {
      await other.close();
      await s.close();
    }
  });

  it('usage: batches are written, summaries match the reference aggregation', async () => {
    const s = await open(true);
    try {
      const records = usageRecords();
      await s.usage.appendBatch(records.slice(0, 25));
      await s.usage.appendBatch(records.slice(25));
      await s.usage.appendBatch([]);
      const queries: UsageQuery[] = [
        { by: 'key' },
        { by: 'model' },
        { by: 'day' },
        { by: 'day', keyId: 'key_b' },
        { by: 'model', from: BASE + DAY, to: BASE + 3 * DAY },
        { by: 'key', keyId: 'key_none' },
      ];
      for (const query of queries) expect(await s.usage.summarize(query)).toEqual(summarizeRecords(records, query));
      expect((await s.usage.summarize({ by: 'day' })).map((r) => r.group)).toEqual(['2026-02-01', '2026-02-02', '2026-02-03', '2026-02-04']);
    } finally {
      await s.close();
    }
  });

  it('usage: the meter writes through the batching writer, and close() flushes', async () => {
    const s = await open(true);
    const key = await s.keys.create({ name: 'metered', budgetUsd: 10 });
    const record = (await s.keys.verify(key.secret))!;
    for (let i = 0; i < 3; i++) {
      const r = await s.meter.admit(record, { requestId: `m${i}`, model: 'm1', family: 'anthropic', estimatedInputTokens: 10, maxOutputTokens: 100 });
      r.settle({ provider: 'p', status: 200, usage: { inputTokens: 10, outputTokens: 20 }, latencyMs: 5, aborted: false });
    }
    await s.close();
    const again = await open(false);
    try {
      expect(await again.usage.summarize({ by: 'key', keyId: key.record.id })).toEqual([
        // 3 × (10 × $1 + 20 × $2 per million)
        { group: key.record.id, requests: 3, errors: 0, inputTokens: 30, outputTokens: 60, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.00015 },
      ]);
    } finally {
      await again.close();
    }
  });
}
