import { describe, expect, it } from 'vitest';
import type { LoadRun } from '../../../bench/lib/rounds.ts';
import { warmupLine, type RuntimeResult } from '../../../bench/lib/report.ts';
import { SCENARIOS } from '../../../bench/lib/scenarios.ts';
import { MiB } from '../../../bench/lib/stats.ts';
import { isQuiet, MAX_QUIET_SECONDS, warmUntilQuiet, type WarmWindow } from '../../../bench/lib/warm-quiet.ts';

describe('warming up until the compiler is quiet', () => {
  it('calls a second quiet when the compiler threads took under 3% of the process', () => {
    expect(isQuiet({ compilerMicros: 29_000, processMicros: 1_000_000 })).toBe(true);
    expect(isQuiet({ compilerMicros: 31_000, processMicros: 1_000_000 })).toBe(false);
    // A compiler thread that ended within the second lowers the sum: it had been idle.
    expect(isQuiet({ compilerMicros: -56_000, processMicros: 1_000_000 })).toBe(true);
  });

  it("loads a second at a time until one is quiet (Bun's Gemini → Anthropic stream settled after ~14 s)", async () => {
    // What bench:warm read for that stream's compiler threads, as shares of the gateway's CPU.
    const shares = [0.36, 0.22, 0.2, 0.32, 0.22, 0.1, 0.03, 0.02, 0.02];
    let loaded = 0;
    const second = async (): Promise<WarmWindow> => ({ compilerMicros: shares[loaded++]! * 1e6, processMicros: 1e6 });
    expect(await warmUntilQuiet(second)).toEqual({ seconds: 8, quiet: true });
    expect(loaded).toBe(8);
  });

  it('stops after the most, so a run stays bounded, and says the compiler was still at work', async () => {
    let loaded = 0;
    const busy = async (): Promise<WarmWindow> => (loaded++, { compilerMicros: 500_000, processMicros: 1e6 });
    expect(await warmUntilQuiet(busy)).toEqual({ seconds: MAX_QUIET_SECONDS, quiet: false });
    expect(loaded).toBe(MAX_QUIET_SECONDS);
  });
});

describe('the warm-up line of the report', () => {
  const run = (rps: number): LoadRun => ({ connections: 64, rps, p50_ms: 1, p99_ms: 2, requests: 10, errors: 0, other_load_pct: 0 });
  const target = (warmup?: { seconds: number; quiet?: boolean }) => ({ runs: [run(1000)], ...(warmup && { warmup }) });
  const result = (scenarios: RuntimeResult['scenarios']): RuntimeResult => ({
    runtime: 'bun',
    version: 'bun 1.4.5',
    scenarios,
    memory: { bare: { rss: MiB, peak: MiB }, gateway: { rss: MiB, peak: MiB } },
    accounting: { accessLogLines: 0, usage: [] },
  });

  it('gives the range of warm-ups over the scenarios, and how many ended with the compiler busy', () => {
    const line = warmupLine(
      result({
        'claude-anthropic-json': { direct: target(), bare: target({ seconds: 2, quiet: true }), gateway: target({ seconds: 3, quiet: true }) },
        'gemini-anthropic-sse': { direct: target(), bare: target({ seconds: 2, quiet: true }), gateway: target({ seconds: 13, quiet: false }) },
      }),
      SCENARIOS,
    );
    expect(line).toContain("the gateway 3–13 s per scenario, the bare proxy 2 s; the gateway's compiler was still at work after the longest in 1 scenario.");
  });

  it('says nothing where no compiler was watched (Deno, --warmup 0, an older results file)', () => {
    expect(warmupLine(result({ 'claude-anthropic-json': { direct: target(), bare: target({ seconds: 1 }), gateway: target({ seconds: 1 }) } }), SCENARIOS)).toBeUndefined();
    expect(warmupLine(result({ 'claude-anthropic-json': { direct: target(), bare: target(), gateway: target() } }), SCENARIOS)).toBeUndefined();
  });
});
