import { GatewayError } from '../errors.ts';
import type { KeyRecord } from '../keys.ts';
import { costNanoUsd, totalTokens, usdToNano, worstCaseNanoUsd, type ModelPrice, type PriceTable } from './prices.ts';
import type { CallInfo, CallOutcome, Clock, Counter, CounterChange, Meter, RateLimiter, Reservation, UsageRecord, UsageSink } from './types.ts';
import { systemClock } from './types.ts';

export interface MeterOptions {
  limiter: RateLimiter;
  usage: UsageSink;
  prices: PriceTable;
  clock?: Clock;
  /** Spend already recorded for a key, used once per key to start a budget counter the limiter lacks. */
  spentUsd?: (keyId: string) => Promise<number>;
  onError?: (err: unknown) => void;
}

const MINUTE = 60_000;
/** A key without limits or a budget: nothing to count (shared, never written to). */
const NO_COUNTERS: readonly Counter[] = Object.freeze([]);

/**
 * Reserve-then-settle admission. At admission every limit of the key takes its worst case
 * atomically (one request, estimated input + max output tokens, their price at the dearest
 * rates); when the call ends the reservation is replaced by what was really used (nothing for
 * a failed or aborted call without usage, the worst case for a success without usage). Concurrent calls therefore cannot overrun a budget:
 * each one has already taken what it could spend.
 */
export function createMeter(options: MeterOptions): Meter {
  const { limiter, usage, prices } = options;
  const clock = options.clock ?? systemClock;
  const onError = options.onError ?? ((err) => console.error(`switchyard: meter: ${String(err)}`));
  const seeds = new Map<string, Promise<number>>();

  function seedFor(keyId: string): Promise<number> {
    let seed = seeds.get(keyId);
    if (!seed) {
      seed = (options.spentUsd ? options.spentUsd(keyId) : Promise.resolve(0)).then(usdToNano);
      seeds.set(keyId, seed);
      // A failed lookup is retried by the next admission rather than remembered.
      seed.catch(() => seeds.delete(keyId));
    }
    return seed;
  }

  return {
    // A key without limits or a budget (the usual case) is admitted without a promise.
    admit(key, call) {
      const admittedAt = clock.now();
      if (key.rpm === undefined && key.tpm === undefined && key.budgetUsd === undefined) return reserve(key, call, prices[call.model], NO_COUNTERS, admittedAt, admittedAt);
      const counters: Counter[] = [];
      const tokens = Math.max(0, Math.ceil(call.estimatedInputTokens)) + Math.max(0, Math.ceil(call.maxOutputTokens));
      if (key.rpm !== undefined) counters.push({ name: `rpm:${key.id}`, windowMs: MINUTE, limit: key.rpm, amount: 1 });
      if (key.tpm !== undefined) counters.push({ name: `tpm:${key.id}`, windowMs: MINUTE, limit: key.tpm, amount: tokens });
      return acquire(key, call, prices[call.model], counters, admittedAt);
    },
  };

  async function acquire(key: KeyRecord, call: CallInfo, price: ModelPrice | undefined, counters: Counter[], admittedAt: number): Promise<Reservation> {
    if (key.budgetUsd !== undefined) {
      if (!price) {
        throw new GatewayError('permission', `This API key has a budget, and no price is configured for model "${call.model}"`, { param: 'model' });
      }
      const worst = worstCaseNanoUsd(Math.max(0, call.estimatedInputTokens), Math.max(0, call.maxOutputTokens), price);
      counters.push({ name: `budget:${key.id}`, limit: usdToNano(key.budgetUsd), amount: worst, seed: await seedFor(key.id) });
    }
    const acquired = await limiter.acquire(call.requestId, counters);
    if (!acquired.ok) throw refusal(key, counters.find((c) => c.name === acquired.counter)!, acquired.retryAfterMs);
    return reserve(key, call, price, counters, admittedAt, acquired.at);
  }

  /** The reservation a call settles once; `at` is when the limiter counted it. */
  function reserve(key: KeyRecord, call: CallInfo, price: ModelPrice | undefined, counters: readonly Counter[], admittedAt: number, at: number): Reservation {
    return new MeterReservation(limiter, usage, onError, key, call, price, counters, admittedAt, at);
  }
}

/**
 * One admitted call. A class rather than a closure over `reserve`'s arguments: one object per
 * call instead of a context, a closure and the object holding it, on every request.
 */
class MeterReservation implements Reservation {
  #settled = false;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly usage: UsageSink,
    private readonly onError: (err: unknown) => void,
    private readonly key: KeyRecord,
    private readonly call: CallInfo,
    private readonly price: ModelPrice | undefined,
    private readonly counters: readonly Counter[],
    private readonly admittedAt: number,
    private readonly at: number,
  ) {}

  settle(outcome: CallOutcome): void {
    if (this.#settled) return;
    this.#settled = true;
    const { call, counters, price } = this;
    const used = outcome.usage;
    // A call that succeeded without reporting usage (e.g. a passthrough the pipeline could
    // not read) keeps its worst case: unknown spend must not become free spend.
    const unknown = !used && outcome.status < 400 && !outcome.aborted;
    const worstCost = counters.find((c) => c.name.startsWith('budget:'))?.amount;
    const cost = used && price ? costNanoUsd(used, price) : unknown && worstCost !== undefined ? worstCost : 0;
    // A key without limits (the usual case) has no counters, and nothing to give back.
    if (counters.length) {
      const changes: CounterChange[] = [];
      for (const counter of counters) {
        const tokens = used ? totalTokens(used) : unknown ? counter.amount : 0;
        if (counter.name.startsWith('tpm:')) changes.push(changeOf(counter, tokens));
        if (counter.name.startsWith('budget:')) changes.push(changeOf(counter, cost));
      }
      if (changes.length) this.limiter.settle(call.requestId, this.at, changes).catch(this.onError);
    }
    const record: UsageRecord = {
      requestId: call.requestId,
      time: this.admittedAt,
      keyId: this.key.id,
      family: call.family,
      model: call.model,
      status: outcome.status,
      inputTokens: used?.inputTokens ?? 0,
      outputTokens: used?.outputTokens ?? 0,
      cacheReadTokens: used?.cacheReadTokens ?? 0,
      cacheWriteTokens: used?.cacheWriteTokens ?? 0,
      costNanoUsd: cost,
      latencyMs: Math.round(outcome.latencyMs),
      aborted: outcome.aborted,
    };
    if (outcome.provider !== undefined) record.provider = outcome.provider;
    if (outcome.upstreamModel !== undefined) record.upstreamModel = outcome.upstreamModel;
    if (outcome.ttfbMs !== undefined) record.ttfbMs = Math.round(outcome.ttfbMs);
    this.usage.add(record);
  }
}

function changeOf(counter: Counter, actual: number): CounterChange {
  const change: CounterChange = { name: counter.name, reserved: counter.amount, actual };
  if (counter.windowMs !== undefined) change.windowMs = counter.windowMs;
  return change;
}

/**
 * A refusal that waiting cannot lift is `final` (x-should-retry: false, which the Anthropic and
 * OpenAI clients obey) and says "capacity exceeded" or "exhausted your capacity": Google's
 * protocol has no do-not-retry signal, and on those words Gemini CLI stops after two retries
 * within 4 s instead of asking again for minutes.
 */
function refusal(key: KeyRecord, counter: Counter, retryAfterMs: number | undefined): GatewayError {
  const retryAfter = retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000));
  const opts = retryAfter === undefined ? {} : { retryAfter };
  if (counter.name.startsWith('rpm:')) {
    return new GatewayError('rate_limit', `Rate limit reached: this API key allows ${key.rpm} requests per minute`, Object.assign({ code: 'rate_limit_exceeded' }, opts));
  }
  if (counter.name.startsWith('tpm:')) {
    const what = `this API key allows ${key.tpm} tokens per minute and this request reserves ${counter.amount} (estimated input + max output tokens)`;
    return retryAfter === undefined
      ? new GatewayError('rate_limit', `Token capacity exceeded: ${what}; lower the max output tokens`, { code: 'tokens_exceed_limit', final: true })
      : new GatewayError('rate_limit', `Token limit reached: ${what}`, Object.assign({ code: 'tokens_exceeded' }, opts));
  }
  const budget = `$${key.budgetUsd}`;
  return retryAfter === undefined
    ? new GatewayError('rate_limit', `Budget exhausted: you have exhausted your capacity on this API key, whose budget of ${budget} cannot cover this request's worst-case cost`, { code: 'budget_exceeded', final: true })
    : new GatewayError('rate_limit', `Budget busy: requests in flight hold the rest of this API key's budget of ${budget}`, Object.assign({ code: 'budget_reserved' }, opts));
}
