import { Pool } from 'undici';
import { percentile } from './stats.ts';

export interface TtfbResult {
  /** Time to the first body byte, ms. */
  ttfb: { p50: number; p90: number; max: number };
  /** Time to the last body byte, ms (includes the drip delay). */
  ttlb: { p50: number };
  requests: number;
}

/**
 * Sequential requests over one keep-alive connection, timing the first and last body chunk
 * from the moment the request is handed to the client. Against the dripping upstream, the first
 * chunk is available `delayMs` before the rest.
 */
export async function measureTtfb(
  origin: string,
  path: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  count: number,
): Promise<TtfbResult> {
  const pool = new Pool(origin, { connections: 1, keepAliveTimeout: 60_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const firsts: number[] = [];
  const lasts: number[] = [];
  try {
    const warmup = Math.min(10, Math.ceil(count / 5));
    for (let i = 0; i < warmup + count; i++) {
      const t0 = performance.now();
      const { statusCode, body } = await pool.request({ path, method: init.method as 'POST', headers: init.headers, body: init.body ?? null });
      let first = 0;
      let text = '';
      for await (const chunk of body) {
        if (!first) first = performance.now();
        text += (chunk as Buffer).toString('utf8');
      }
      const last = performance.now();
      if (statusCode !== 200) throw new Error(`${origin}${path}: status ${statusCode}: ${text.slice(0, 300)}`);
      if (i >= warmup) {
        firsts.push(first - t0);
        lasts.push(last - t0);
      }
    }
  } finally {
    await pool.close();
  }
  return {
    ttfb: { p50: percentile(firsts, 50), p90: percentile(firsts, 90), max: Math.max(...firsts) },
    ttlb: { p50: percentile(lasts, 50) },
    requests: count,
  };
}
