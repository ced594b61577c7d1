import { describe, expect, it } from 'vitest';
import { createMemoryLimiter } from '../../../core/accounting/memory-limiter.ts';
import { createMemoryUsageStore } from '../../../core/accounting/memory-usage-store.ts';
import { createMeter } from '../../../core/accounting/meter.ts';
import type { CallInfo, Reservation, UsageRecord } from '../../../core/accounting/types.ts';
import { createUsageWriter } from '../../../core/accounting/usage-writer.ts';
import { isGatewayError, type GatewayError } from '../../../core/errors.ts';
import type { KeyRecord } from '../../../core/keys.ts';
import type { MaybePromise } from '../../../core/maybe-promise.ts';

/** The words on which Gemini CLI 0.61 gives up a 429 after two quick retries instead of ten slow ones (its classifyGoogleError). */
const GEMINI_CLI_STOPS_ON = /exhausted your capacity|capacity exceeded/i;

const T0 = 1_700_000_040_000; // on a bucket boundary, so windows are easy to reason about

function setup(options: { spentUsd?: (id: string) => Promise<number> } = {}) {
  const clock = { t: T0, now() { return this.t; } };
  const store = createMemoryUsageStore();
  const writer = createUsageWriter(store, { maxRecords: 1000, flushMs: 60_000 });
  const meter = createMeter({
    limiter: createMemoryLimiter({ clock }),
    usage: writer,
    // $1 / $10 per million: a call with 1000 input and 10000 max output tokens may cost $0.101.
    prices: { m: { input: 1, output: 10 }, cached: { input: 1, output: 10, cacheRead: 0.1, cacheWrite: 2 } },
    clock,
    ...options,
  });
  let n = 0;
  const call = (over: Partial<CallInfo> = {}): CallInfo => ({ requestId: `r${n++}`, model: 'm', family: 'openai', estimatedInputTokens: 1000, maxOutputTokens: 10_000, ...over });
  const records = async (): Promise<UsageRecord[]> => (await writer.flush(), store.records as UsageRecord[]);
  return { clock, meter, call, records };
}

async function refusal(admitted: MaybePromise<unknown>): Promise<GatewayError> {
  const err = await Promise.resolve(admitted).then(() => undefined, (e: unknown) => e);
  if (!isGatewayError(err)) throw new Error(`expected a GatewayError, got ${String(err)}`);
  return err;
}

describe('meter: requests per minute', () => {
  it('admits rpm calls per sliding minute and names when to retry', async () => {
    const { clock, meter, call } = setup();
    const key: KeyRecord = { id: 'k', rpm: 3 };
    for (let i = 0; i < 3; i++) await meter.admit(key, call());
    clock.t += 20_000;
    const err = await refusal(meter.admit(key, call()));
    expect([err.kind, err.status, err.opts.retryAfter, err.opts.code, err.opts.final]).toEqual(['rate_limit', 429, 40, 'rate_limit_exceeded', undefined]);
    clock.t = T0 + 59_999;
    await refusal(meter.admit(key, call()));
    clock.t = T0 + 60_000;
    await meter.admit(key, call());
  });

  it('counts a request even when it fails or is aborted', async () => {
    const { meter, call } = setup();
    const key: KeyRecord = { id: 'k', rpm: 1 };
    (await meter.admit(key, call())).settle({ status: 502, latencyMs: 1, aborted: true });
    expect((await refusal(meter.admit(key, call()))).kind).toBe('rate_limit');
  });
});

describe('meter: tokens per minute', () => {
  it('reserves estimated input + max output, then settles to the real usage', async () => {
    const { meter, call } = setup();
    const key: KeyRecord = { id: 'k', tpm: 1000 };
    const first = await meter.admit(key, call({ estimatedInputTokens: 100, maxOutputTokens: 500 }));
    // 600 reserved: a second 600 does not fit until the first settles.
    const err = await refusal(meter.admit(key, call({ estimatedInputTokens: 100, maxOutputTokens: 500 })));
    expect([err.opts.code, err.opts.retryAfter, err.opts.final]).toEqual(['tokens_exceeded', 60, undefined]);
    first.settle({ status: 200, usage: { inputTokens: 80, outputTokens: 20, cacheReadTokens: 50 }, latencyMs: 3, aborted: false });
    await Promise.resolve();
    // 150 used: 850 left.
    await meter.admit(key, call({ estimatedInputTokens: 350, maxOutputTokens: 500 }));
    expect((await refusal(meter.admit(key, call({ estimatedInputTokens: 0, maxOutputTokens: 1 })))).kind).toBe('rate_limit');
  });

  it('releases the reservation of an aborted call without usage', async () => {
    const { meter, call } = setup();
    const key: KeyRecord = { id: 'k', tpm: 1000 };
    (await meter.admit(key, call({ estimatedInputTokens: 400, maxOutputTokens: 600 }))).settle({ status: 200, latencyMs: 1, aborted: true });
    await meter.admit(key, call({ estimatedInputTokens: 400, maxOutputTokens: 600 }));
  });

  it('refuses, without retry-after and as final (asking again cannot help), a request that could never fit', async () => {
    const { meter, call } = setup();
    const err = await refusal(meter.admit({ id: 'k', tpm: 1000 }, call({ estimatedInputTokens: 10, maxOutputTokens: 1000 })));
    expect([err.status, err.opts.retryAfter, err.opts.code, err.opts.final]).toEqual([429, undefined, 'tokens_exceed_limit', true]);
    expect(err.message).toMatch(GEMINI_CLI_STOPS_ON);
  });
});

describe('meter: budget', () => {
  it('is never overrun by 50 concurrent admissions', async () => {
    const { meter, call, records } = setup();
    const key: KeyRecord = { id: 'k', budgetUsd: 1 };
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => meter.admit(key, call())));
    const admitted = results.filter((r) => r.status === 'fulfilled');
    // Worst case $0.101 each: 9 fit in $1.
    expect(admitted.length).toBe(9);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as GatewayError).opts);
    expect(refused.every((o) => o.code === 'budget_reserved' && o.retryAfter === 1 && o.final === undefined)).toBe(true);
    // Every admitted call spends its worst case: still exactly within the budget.
    for (const r of admitted) (r as PromiseFulfilledResult<{ settle: (o: object) => void }>).value.settle({ status: 200, usage: { inputTokens: 1000, outputTokens: 10_000 }, latencyMs: 1, aborted: false });
    const spent = (await records()).reduce((sum, r) => sum + r.costNanoUsd, 0);
    expect(spent).toBe(909_000_000);
    const err = await refusal(meter.admit(key, call()));
    expect([err.opts.code, err.opts.retryAfter, err.opts.final]).toEqual(['budget_exceeded', undefined, true]);
    expect(err.message).toMatch(GEMINI_CLI_STOPS_ON);
    // A smaller call still fits in what is left ($0.091).
    await meter.admit(key, call({ maxOutputTokens: 9000 }));
  });

  it('settles to the real cost, including cache tokens at their prices', async () => {
    const { meter, call, records } = setup();
    const key: KeyRecord = { id: 'k', budgetUsd: 0.2 };
    const r = await meter.admit(key, call({ model: 'cached', estimatedInputTokens: 1000, maxOutputTokens: 1000 }));
    r.settle({ provider: 'p', upstreamModel: 'up', status: 200, usage: { inputTokens: 100, outputTokens: 200, cacheReadTokens: 1000, cacheWriteTokens: 10 }, latencyMs: 12.4, ttfbMs: 3.6, aborted: false });
    r.settle({ status: 500, latencyMs: 99, aborted: true });
    const [record, ...more] = await records();
    expect(more).toEqual([]);
    expect(record).toEqual({
      requestId: 'r0', time: T0, keyId: 'k', family: 'openai', model: 'cached', provider: 'p', upstreamModel: 'up', status: 200,
      inputTokens: 100, outputTokens: 200, cacheReadTokens: 1000, cacheWriteTokens: 10,
      // 100×1 + 200×10 + 1000×0.1 + 10×2 = 2220 µUSD
      costNanoUsd: 2_220_000, latencyMs: 12, ttfbMs: 4, aborted: false,
    });
  });

  it('reserves input at the dearest input rate (a prompt may become a cache write)', async () => {
    const { meter, call } = setup();
    // Worst case: 1000×2 + 1000×10 = 12000 µUSD.
    await refusal(meter.admit({ id: 'k', budgetUsd: 0.011999 }, call({ model: 'cached', estimatedInputTokens: 1000, maxOutputTokens: 1000 })));
    await meter.admit({ id: 'k2', budgetUsd: 0.012 }, call({ model: 'cached', estimatedInputTokens: 1000, maxOutputTokens: 1000 }));
  });

  it('starts from the spend already recorded for the key', async () => {
    const asked: string[] = [];
    const { meter, call } = setup({ spentUsd: async (id) => (asked.push(id), 0.95) });
    const key: KeyRecord = { id: 'k', budgetUsd: 1 };
    await refusal(meter.admit(key, call()));
    await meter.admit(key, call({ maxOutputTokens: 4000 }));
    expect(asked).toEqual(['k']);
  });

  it('charges the worst case for a success that reported no usage', async () => {
    const { meter, call, records } = setup();
    const key: KeyRecord = { id: 'k', budgetUsd: 0.2, tpm: 20_000 };
    (await meter.admit(key, call())).settle({ status: 200, latencyMs: 1, aborted: false });
    expect((await records())[0]!.costNanoUsd).toBe(101_000_000);
    // $0.099 and 9,000 tokens left: 1,000 estimated input + 8,000 output fits (and costs $0.081).
    expect((await refusal(meter.admit(key, call({ maxOutputTokens: 8001 })))).opts.code).toBe('tokens_exceeded');
    await meter.admit(key, call({ maxOutputTokens: 8000 }));
  });

  it('refuses a budgeted key on a model without a price', async () => {
    const { meter, call } = setup();
    const err = await refusal(meter.admit({ id: 'k', budgetUsd: 5 }, call({ model: 'unpriced' })));
    expect([err.kind, err.status]).toEqual(['permission', 403]);
    await meter.admit({ id: 'unlimited' }, call({ model: 'unpriced' }));
  });

  it('admits everything for a key without limits and still records usage', async () => {
    const { meter, call, records } = setup();
    for (let i = 0; i < 20; i++) (await meter.admit({ id: 'free' }, call({ model: 'unpriced' }))).settle({ status: 200, latencyMs: 1, aborted: false });
    expect((await records()).length).toBe(20);
  });
});

describe('meter: admission on the per-request path', () => {
  it('admits a key with nothing to count synchronously; limits and budgets go through the limiter', async () => {
    const { meter, call, records } = setup();
    const free = meter.admit({ id: 'free' }, call());
    expect(free).not.toBeInstanceOf(Promise);
    (free as Reservation).settle({ status: 200, usage: { inputTokens: 3, outputTokens: 4 }, latencyMs: 1, aborted: false });
    expect((await records()).map((r) => [r.keyId, r.inputTokens, r.outputTokens])).toEqual([['free', 3, 4]]);
    expect(meter.admit({ id: 'limited', rpm: 5 }, call())).toBeInstanceOf(Promise);
    expect(meter.admit({ id: 'budget', budgetUsd: 1 }, call())).toBeInstanceOf(Promise);
    // A budget without a price still refuses as a rejection, not a synchronous throw.
    const unpriced = meter.admit({ id: 'budget', budgetUsd: 1 }, call({ model: 'unpriced' }));
    expect(unpriced).toBeInstanceOf(Promise);
    expect((await refusal(unpriced)).kind).toBe('permission');
  });
});
