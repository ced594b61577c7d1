import type { ScenarioResult } from './measure.ts';
import { addedP50, pairedMedian, throughputRatio, type LoadRun } from './rounds.ts';
import type { Scenario } from './scenarios.ts';
import type { Runtime } from './servers.ts';
import { MiB } from './stats.ts';

/** The targets, in one place. Deno has none of its own: Node's rules are applied for information. */
export const TARGETS = {
  passthroughThroughput: 0.7,
  bunPassthroughAddedP50Ms: 0.15,
  streamTtlbAddedP50Ms: 0.1,
  /** A relayed first byte is within this of the bare proxy's; a proxy that waits for more shows the drip delay. */
  streamTtfbSlackMs: 1,
  translatedVsPassthrough: 0.5,
  peakRss: { bun: 80 * MiB, node: 150 * MiB } as Partial<Record<Runtime, number>>,
  /**
   * Peak RSS growth allowed over the soak's second half (50% → 100%): the larger of these. Peak,
   * not current RSS, because current RSS swings with the collector's phase; a leak keeps raising
   * both. The first half is warm-up, shown and not judged: V8's old generation takes a few hundred
   * thousand requests to reach its cycle (`--heap-growing-percent=100`), and growth that stops is
   * not a leak. A leak of b bytes a request raises the peak by b × N/2 in the second half; at N =
   * 1,000,000 this catches 34 bytes a request or more, less than anything a request could keep (an
   * entry in a list and its id string: ~50), where judging 10% → 100% caught 19 but failed servers
   * whose growth had stopped before half-way. V8's sawtooth (~15 MiB on Node) is why the allowance
   * is not smaller.
   */
  soakGrowth: { bytes: 16 * MiB, ratio: 0.1, fromPercent: 50 },
};

export const low = (runs: LoadRun[]) => runs.reduce((a, b) => (b.connections < a.connections ? b : a));
export const high = (runs: LoadRun[]) => runs.reduce((a, b) => (b.connections > a.connections ? b : a));

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const ms = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)} ms`;

export interface Verdict {
  ok: boolean;
  text: string;
}

/** Every target that applies to one scenario row; `all` holds the runtime's other results. */
export function scenarioVerdicts(runtime: Runtime, s: Scenario, r: ScenarioResult, all: Record<string, ScenarioResult>): Verdict[] {
  const out: Verdict[] = [];
  const hi = high(r.gateway.runs).connections;
  const lo = low(r.gateway.runs).connections;
  const ratio = pairedMedian(r.gateway, r.bare, hi, throughputRatio);
  // Paired only with the reference run in this row's own rotation; another row's runs (an older
  // results file) were not in the same rounds, so their medians are compared.
  const toRef = (ref: ScenarioResult['gateway']) => (ref === r.passthrough ? pairedMedian(r.gateway, ref, hi, throughputRatio) : throughputRatio(high(r.gateway.runs), high(ref.runs)));
  const errors = [...r.bare.runs, ...r.gateway.runs].reduce((n, run) => n + run.errors, 0);
  if (errors) out.push({ ok: false, text: `✗ ${errors} wrk errors` });
  if (s.large) {
    // No target: the issue sets them for ~1 KB requests. The translated row's ratio to its passthrough is shown.
    const ref = s.passthroughRef ? (r.passthrough ?? all[s.passthroughRef]?.gateway) : undefined;
    out.push({ ok: true, text: ref ? `no target; ${toRef(ref).toFixed(2)}× pass` : 'no target' });
    return out;
  }
  if (s.kind === 'passthrough') {
    const t = TARGETS.passthroughThroughput;
    out.push({ ok: ratio >= t, text: `${mark(ratio >= t)} thr ${ratio.toFixed(2)}× ${ratio >= t ? '≥' : '<'} ${t}×` });
    const added = pairedMedian(r.gateway, r.bare, lo, addedP50);
    if (runtime === 'bun') {
      const lim = TARGETS.bunPassthroughAddedP50Ms;
      out.push({ ok: added <= lim, text: `${mark(added <= lim)} p50 ${ms(added)} vs bare (≤ +${lim})` });
    }
    if (s.stream) {
      const lim = TARGETS.streamTtlbAddedP50Ms;
      out.push({ ok: added <= lim, text: `${mark(added <= lim)} TTLB ${ms(added)} vs bare (≤ +${lim})` });
    }
  }
  if (s.kind === 'translated' && s.passthroughRef) {
    // The reference measured in this scenario's own rotation; a result without one (an older
    // results file) falls back to the reference scenario's own rows, measured minutes apart.
    const ref = r.passthrough ?? all[s.passthroughRef]?.gateway;
    if (!ref) out.push({ ok: true, text: `n/a (run ${s.passthroughRef} for the ratio)` });
    else {
      const x = toRef(ref);
      const t = TARGETS.translatedVsPassthrough;
      out.push({ ok: x >= t, text: `${mark(x >= t)} ${x.toFixed(2)}× pass ${x >= t ? '≥' : '<'} ${t}×` });
    }
  }
  if (r.gateway.ttfb && r.bare.ttfb) {
    const added = r.gateway.ttfb.ttfb.p50 - r.bare.ttfb.ttfb.p50;
    const lim = TARGETS.streamTtfbSlackMs;
    out.push({ ok: added <= lim, text: `${mark(added <= lim)} TTFB ${ms(added)} vs bare (≤ +${lim})` });
  }
  return out;
}

export function rssVerdict(runtime: Runtime, peak: number): Verdict | undefined {
  const limit = TARGETS.peakRss[runtime];
  if (limit === undefined) return undefined;
  return { ok: peak < limit, text: `${mark(peak < limit)} < ${limit / MiB} MiB` };
}

/**
 * The leak check's verdict from its marks (10%, 50%, 100%): judged on the peak's growth from
 * the `fromPercent` mark to the last; the growth before it (warm-up) is shown, not judged.
 */
export function soakVerdict(marks: ReadonlyArray<{ percent: number; peak: number }>): Verdict {
  const { bytes, ratio, fromPercent } = TARGETS.soakGrowth;
  const first = marks[0];
  const from = marks.find((m) => m.percent === fromPercent);
  const last = marks.at(-1);
  if (!first || !from || !last || last === from) return { ok: false, text: `✗ the soak has no ${fromPercent}% and later mark to judge` };
  const growth = last.peak - from.peak;
  const limit = Math.max(bytes, ratio * from.peak);
  const ok = growth <= limit;
  const warmup = from.peak - first.peak;
  return {
    ok,
    text: `${mark(ok)} peak RSS grew ${mib1(growth)} MiB from ${fromPercent}% to ${last.percent}% (flat: ≤ ${(limit / MiB).toFixed(1)} MiB, the larger of ${bytes / MiB} MiB and ${ratio * 100}%); ${mib1(warmup)} MiB from ${first.percent}% to ${fromPercent}% (warm-up, not judged)`,
  };
}

const mib1 = (n: number) => `${n >= 0 ? '+' : ''}${(n / MiB).toFixed(1)}`;
