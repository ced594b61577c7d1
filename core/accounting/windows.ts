/**
 * Sliding windows are kept as 60 buckets (1 s each for a one-minute window): memory stays
 * constant however many requests arrive, and an amount leaves the window at most one bucket
 * early.
 */
export const BUCKETS_PER_WINDOW = 60;

export function bucketMsFor(windowMs: number): number {
  return Math.max(1, Math.floor(windowMs / BUCKETS_PER_WINDOW));
}

/** Held amounts of lifetime counters expire, so that a crashed instance cannot block a budget for good. */
export const DEFAULT_RESERVATION_TTL_MS = 2 * 60 * 60 * 1000;

/**
 * When enough of the window will have passed for `amount` to fit: the oldest buckets leave
 * first. `buckets` are [index, amount] pairs of the live window.
 */
export function windowRetryAfterMs(buckets: Array<[number, number]>, used: number, amount: number, limit: number, windowMs: number, now: number): number {
  const bucketMs = bucketMsFor(windowMs);
  const count = Math.ceil(windowMs / bucketMs);
  const need = used + amount - limit;
  let freed = 0;
  for (const [index, value] of [...buckets].sort((a, b) => a[0] - b[0])) {
    freed += value;
    if (freed >= need) return Math.max(1, (index + count) * bucketMs - now);
  }
  return windowMs;
}
