import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../bench/lib/args.ts';
import { medianRun, type LoadRun } from '../../../bench/lib/measure.ts';

const run = (rps: number, over: Partial<LoadRun> = {}): LoadRun => ({
  connections: 64, rps, p50_ms: rps / 1000, p99_ms: rps / 100, requests: 10, errors: 0, cpu_us_per_req: 1e6 / rps, other_load_pct: 0, ...over,
});

describe('bench rounds', () => {
  it('reports each number as the median of the rounds, so one drifted run does not set the ratio', () => {
    const m = medianRun([run(9000), run(5000, { other_load_pct: 7 }), run(10000, { errors: 1 })]);
    expect(m).toEqual({ connections: 64, rps: 9000, p50_ms: 9, p99_ms: 90, requests: 30, errors: 1, cpu_us_per_req: 1e6 / 9000, other_load_pct: 7 });
  });

  it('takes the middle two for an even count, and leaves out CPU where no run had it', () => {
    const m = medianRun([run(4000, { cpu_us_per_req: undefined }), run(2000, { cpu_us_per_req: undefined })]);
    expect(m.rps).toBe(3000);
    expect('cpu_us_per_req' in m).toBe(false);
  });

  it('takes --rounds from 1 to 9, three by default', () => {
    expect(parseArgs([]).rounds).toBe(3);
    expect(parseArgs(['--rounds', '1']).rounds).toBe(1);
    expect(parseArgs(['--rounds', '3']).rounds).toBe(3);
    expect(() => parseArgs(['--rounds', '0'])).toThrow(/--rounds/);
    expect(() => parseArgs(['--rounds=2.5'])).toThrow(/--rounds/);
  });
});
