import { median } from './stats.ts';

/** One wrk run of one target, as measure.ts records it. */
export interface LoadRun {
  connections: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  errors: number;
  /** utime + stime of the serving process during the run, per request. */
  cpu_us_per_req?: number;
  /** Share of the server's core used by anything but the server during the run (should be ~0). */
  other_load_pct?: number;
  /** The slower of the speed probes just before and just after the run, and the fastest of the bench run so far (speed-probe.ts). */
  probe_ms?: number;
  probe_fastest_ms?: number;
}

/** What a run records of the machine's speed. */
export type SpeedReading = Required<Pick<LoadRun, 'probe_ms' | 'probe_fastest_ms'>>;

/** Other processes using more of the server's core than this make a run unreliable. */
export const OTHER_LOAD_WARN_PCT = 5;

/**
 * A run is slow when a speed probe before or after it took this many times the fastest probe of
 * the bench run so far. On this machine the probe takes ~70–80 ms when the machine is quick and up
 * to ~120 ms when the hypervisor gives the VM less (seen within one minute, nothing else
 * running): the servers' CPU per request then nearly doubles, and no other process shows on the core.
 */
export const SLOW_PROBE_RATIO = 1.25;

export const isBusy = (run: LoadRun) => (run.other_load_pct ?? 0) >= OTHER_LOAD_WARN_PCT;
/** How many times the fastest probe the slower probe around this run took (1 without a probe). */
export const slowness = (run: LoadRun) => (run.probe_ms && run.probe_fastest_ms ? run.probe_ms / run.probe_fastest_ms : 1);
export const isSlow = (run: LoadRun) => slowness(run) >= SLOW_PROBE_RATIO;
export const isDisturbed = (run: LoadRun) => isBusy(run) || isSlow(run);

/** The order targets run in, round by round: 0 1 2, 1 2 0, 2 0 1, … (two targets: 0 1, 1 0). */
export function rotation(count: number, round: number): number[] {
  return Array.from({ length: count }, (_, i) => (i + round) % count);
}

/** Every round's runs, by target; the rounds that were run again are kept apart. */
export interface RoundsResult {
  kept: LoadRun[][];
  /** Runs of disturbed rounds that were then run again. */
  redone: LoadRun[][];
}

/**
 * `rounds` rounds of `count` targets in rotation. A round in which any run was disturbed (busy or
 * slow, above) is run again, whole and in the same order, at most `redo` times in all: the ratios
 * compare runs of one round, and a neighbour's burst during the gateway's run and not the bare
 * proxy's (or the other way round) says nothing about either. The disturbance is read from the
 * core's own counters and the speed probe, never from the results, so what is run again does not
 * depend on which target came out ahead; once the budget is spent the rounds are kept as they
 * came and the report marks them ⚠.
 */
export async function runRounds(
  count: number, rounds: number, redo: number,
  runOne: (target: number, round: number, again: boolean) => Promise<LoadRun>,
): Promise<RoundsResult> {
  const kept: LoadRun[][] = Array.from({ length: count }, () => []);
  const redone: LoadRun[][] = Array.from({ length: count }, () => []);
  let left = redo;
  let again = false;
  for (let round = 0; round < rounds; ) {
    const runs: LoadRun[] = [];
    const order = rotation(count, round);
    for (const t of order) runs[t] = await runOne(t, round, again);
    again = left > 0 && runs.some(isDisturbed);
    for (const t of order) (again ? redone : kept)[t]!.push(runs[t]!);
    if (again) left--;
    else round++;
  }
  return { kept, redone };
}

/** Each number the median of the runs' (errors and requests summed, other load and slowness the worst). */
export function medianRun(runs: readonly LoadRun[]): LoadRun {
  const mid = (pick: (run: LoadRun) => number | undefined) => {
    const values = runs.map(pick).filter((v): v is number => v !== undefined);
    return values.length ? median(values) : undefined;
  };
  const cpu = mid((run) => run.cpu_us_per_req);
  const slowest = runs.reduce((a, b) => (slowness(b) > slowness(a) ? b : a));
  return {
    connections: runs[0]!.connections,
    rps: mid((run) => run.rps)!,
    p50_ms: mid((run) => run.p50_ms)!,
    p99_ms: mid((run) => run.p99_ms)!,
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    ...(cpu !== undefined && { cpu_us_per_req: cpu }),
    other_load_pct: Math.max(...runs.map((run) => run.other_load_pct ?? 0)),
    ...(slowest.probe_ms !== undefined && { probe_ms: slowest.probe_ms, probe_fastest_ms: slowest.probe_fastest_ms }),
  };
}

/** A target's runs: the medians by connection count, and the kept rounds in the order run. */
export interface Measured {
  runs: readonly LoadRun[];
  rounds?: readonly LoadRun[];
}

/**
 * `a` against `b` at one connection count, round by round: the median of each round's own
 * comparison, so each gateway run is set against the bare proxy's run seconds from it, not
 * against a median that may come from another round. The machine's speed drifts by a third within
 * a minute here without any other process showing on its core (the hypervisor's share is not
 * counted), and a ratio of medians can then pair a slow run with a fast one. Results without
 * rounds (one round, or an older file) compare the medians.
 */
export function pairedMedian(a: Measured, b: Measured, connections: number, compare: (a: LoadRun, b: LoadRun) => number): number {
  const at = (t: Measured) => (t.rounds ?? []).filter((run) => run.connections === connections);
  const [ra, rb] = [at(a), at(b)];
  if (ra.length && ra.length === rb.length) return median(ra.map((run, i) => compare(run, rb[i]!)));
  const pick = (t: Measured) => t.runs.find((run) => run.connections === connections)!;
  return compare(pick(a), pick(b));
}

export const throughputRatio = (a: LoadRun, b: LoadRun) => a.rps / b.rps;
export const addedP50 = (a: LoadRun, b: LoadRun) => a.p50_ms - b.p50_ms;
