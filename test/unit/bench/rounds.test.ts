import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../bench/lib/args.ts';
import { addedP50, isDisturbed, medianRun, pairedMedian, rotation, runRounds, throughputRatio, type LoadRun } from '../../../bench/lib/rounds.ts';
import { disturbedLine, memoryAfterLines, redoneLine, speedLine, thinMarkdown, type RuntimeResult } from '../../../bench/lib/report.ts';
import { probeSpeed, speedTracker } from '../../../bench/lib/speed-probe.ts';
import { SCENARIOS } from '../../../bench/lib/scenarios.ts';
import { scenarioVerdicts, soakVerdict } from '../../../bench/lib/verdicts.ts';
import { MiB } from '../../../bench/lib/stats.ts';

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

describe('disturbed rounds run again (--redo)', () => {
  /** Targets that answer with their index as rps; `busy` says which calls (in order) were disturbed. */
  const rig = (busy: (call: number) => boolean) => {
    const calls: { target: number; round: number; again: boolean }[] = [];
    const runOne = async (target: number, round: number, again: boolean) => {
      const disturbed = busy(calls.length);
      calls.push({ target, round, again });
      return run(1000 + target, { other_load_pct: disturbed ? 12 : 0.4 });
    };
    return { calls, runOne };
  };

  it('keeps every round of a quiet machine, in rotation', async () => {
    const { calls, runOne } = rig(() => false);
    const { kept, redone } = await runRounds(2, 3, 2, runOne);
    expect(calls.map((c) => c.target)).toEqual([0, 1, 1, 0, 0, 1]);
    expect(kept.map((runs) => runs.length)).toEqual([3, 3]);
    expect(redone).toEqual([[], []]);
  });

  it('runs a disturbed round again whole, in the same order, and keeps only the quiet one', async () => {
    // The fourth call is the second round's second target (target 0 there).
    const { calls, runOne } = rig((call) => call === 3);
    const { kept, redone } = await runRounds(2, 3, 2, runOne);
    expect(calls).toEqual([
      { target: 0, round: 0, again: false }, { target: 1, round: 0, again: false },
      { target: 1, round: 1, again: false }, { target: 0, round: 1, again: false },
      { target: 1, round: 1, again: true }, { target: 0, round: 1, again: true },
      { target: 0, round: 2, again: false }, { target: 1, round: 2, again: false },
    ]);
    expect(kept.flat().every((r) => r.other_load_pct! < 5)).toBe(true);
    expect(kept.map((runs) => runs.length)).toEqual([3, 3]);
    // The quiet run of the disturbed round is set aside too: its partner's was not comparable.
    expect(redone.map((runs) => runs.map((r) => r.other_load_pct))).toEqual([[12], [0.4]]);
  });

  it('stops running again once the budget is spent and keeps what came, so a run stays bounded', async () => {
    const { calls, runOne } = rig(() => true);
    const { kept, redone } = await runRounds(3, 3, 2, runOne);
    expect(calls.length).toBe((3 + 2) * 3);
    expect(kept.map((runs) => runs.length)).toEqual([3, 3, 3]);
    expect(redone.map((runs) => runs.length)).toEqual([2, 2, 2]);
    expect(medianRun(kept[0]!).other_load_pct).toBe(12);
  });

  it('never runs again with --redo 0, and takes --redo from 0 to 9, two by default', async () => {
    const { calls, runOne } = rig(() => true);
    await runRounds(2, 3, 0, runOne);
    expect(calls.length).toBe(6);
    expect(parseArgs([]).redo).toBe(2);
    expect(parseArgs(['--redo', '0']).redo).toBe(0);
    expect(() => parseArgs(['--redo', '-1'])).toThrow(/--redo/);
    expect(() => parseArgs(['--redo=10'])).toThrow(/--redo/);
  });

  it('says in the report how many rounds were run again, and nothing when none was', () => {
    const target = (redone: number) => ({ runs: [run(9000)], rounds: [run(9000), run(9000), run(9000)], redone: Array.from({ length: redone }, () => run(1, { other_load_pct: 9 })) });
    const result = (redone: number): RuntimeResult => ({
      runtime: 'bun',
      version: 'bun 1.4.5',
      scenarios: { a: { direct: { runs: [run(40000)] }, bare: target(redone), gateway: target(redone) }, b: { direct: { runs: [run(40000)], redone: [run(1, { other_load_pct: 30 })] }, bare: target(0), gateway: target(0) } },
      memory: { bare: { rss: MiB, peak: MiB }, gateway: { rss: MiB, peak: MiB } },
      accounting: { accessLogLines: 0, usage: [] },
    });
    expect(redoneLine(result(2), 2)).toBe("3 of 11 rounds were run again (`--redo 2`): other processes took ≥ 5% of the server's core during them, or the machine was slow around them. Their runs are set aside in the results file (`redone`), not in these medians.");
    const quiet = result(0);
    delete quiet.scenarios.b!.direct.redone;
    expect(redoneLine(quiet, 2)).toBe('');
  });
});

describe('a slow machine (the speed probe)', () => {
  const probed = (probe: number, fastest: number, over: Partial<LoadRun> = {}) => run(9000, { probe_ms: probe, probe_fastest_ms: fastest, ...over });

  it('counts a run disturbed when the probe before it took 1.25× the fastest, with nothing else on the core', () => {
    expect(isDisturbed(probed(78, 70))).toBe(false);
    expect(isDisturbed(probed(87, 70))).toBe(false);
    expect(isDisturbed(probed(88, 70))).toBe(true);
    expect(isDisturbed(run(9000))).toBe(false);
    expect(isDisturbed(run(9000, { other_load_pct: 5 }))).toBe(true);
  });

  it('runs a round again when its machine was slow, as when it was busy', async () => {
    let call = 0;
    const { kept, redone } = await runRounds(2, 2, 2, async () => (call++ === 1 ? probed(110, 71) : probed(72, 71)));
    expect(redone.map((runs) => runs.length)).toEqual([1, 1]);
    expect(kept.flat().every((r) => !isDisturbed(r))).toBe(true);
  });

  it('keeps the slowest run’s probe in a median, so its row is marked', () => {
    const m = medianRun([probed(72, 70), probed(105, 70), probed(71, 70)]);
    expect([m.probe_ms, m.probe_fastest_ms]).toEqual([105, 70]);
    expect('probe_ms' in medianRun([run(1), run(2)])).toBe(false);
  });

  it('tracks the fastest probe over the whole command', async () => {
    const times = [80, 70, 104, 75];
    const next = speedTracker(0, async () => times.shift()!);
    const readings = [await next(), await next(), await next(), await next()];
    expect(readings.map((r) => r.probe_fastest_ms)).toEqual([80, 70, 70, 70]);
    expect(readings.map((r) => r.probe_ms)).toEqual([80, 70, 104, 75]);
  });

  it('says how many runs were busy and how many slow', () => {
    expect(disturbedLine([run(1), run(1)])).toBe('');
    expect(disturbedLine([run(1, { other_load_pct: 7.5 }), probed(105, 70), probed(90, 70), run(1)])).toBe(
      "⚠ The machine was not quiet: other processes took ≥ 5% of the server's core in 1 of 4 runs (up to 7.5%); it was slow in 2 of 4 (a speed probe before or after them took ≥ 1.25× its fastest time, up to 1.50×); rows marked ⚠ are unreliable.",
    );
  });

  it('states the machine’s speed in the probe’s milliseconds, which a run slow from start to end shows nowhere else', () => {
    // Every probe ~2.7× a quick machine's ~75 ms: no run is 1.25× the command's fastest, so no ⚠.
    const slowAllRun = [probed(214, 206), probed(221, 206), probed(206, 206), probed(249, 206)];
    expect(disturbedLine(slowAllRun)).toBe('');
    expect(speedLine(slowAllRun)).toBe(
      "Speed probe (`bench/lib/speed-probe.mjs` on the server's core): the command's fastest reading up to this table's last run 206 ms; the median over the 4 runs kept, each round counted and each the slower of its readings before and after it, 218 ms.",
    );
    // The fastest reading can be one taken before a run whose own (slower) reading is kept.
    expect(speedLine([probed(80, 71), probed(75, 71)])).toMatch(/fastest reading up to this table's last run 71 ms; the median over the 2 runs kept, .*, 78 ms\./);
    expect(speedLine([run(1), run(2)])).toBe('');
  });

  it('times the probe on a core, in milliseconds', async () => {
    const ms = await probeSpeed(0);
    expect(ms).toBeGreaterThan(1);
    expect(ms).toBeLessThan(30_000);
  });
});

describe('the gateway against the bare proxy, round by round', () => {
  // The Gemini stream's 64-connection rounds on Bun, forty-fourth round: the machine slowed by a
  // third between the second round's gateway run and its bare proxy's, with no other process
  // on the core. The ratio of the medians (11,208 ÷ 9,893) read 1.13×.
  const at64 = (rps: number[]) => rps.map((r) => run(r, { connections: 64 }));
  const bare = { runs: [run(9893)], rounds: at64([16137, 9893, 9829]) };
  const gateway = { runs: [run(11208)], rounds: at64([12606, 11208, 7747]) };

  it('takes the median of each round’s own ratio, not the ratio of the medians', () => {
    expect(throughputRatio(gateway.runs[0]!, bare.runs[0]!)).toBeCloseTo(1.133, 3);
    expect(pairedMedian(gateway, bare, 64, throughputRatio)).toBeCloseTo(0.788, 3);
  });

  it('reads the added p50 the same way, at the connection count asked for', () => {
    const with8 = (p50: number[], t: { rounds: LoadRun[] }) => ({ runs: [], rounds: [...p50.map((p) => run(1, { connections: 8, p50_ms: p })), ...t.rounds] });
    const diff = pairedMedian(with8([0.60, 0.61, 0.70], gateway), with8([0.50, 0.48, 0.52], bare), 8, addedP50);
    expect(diff).toBeCloseTo(0.13, 6);
  });

  it('judges the passthrough target on the paired ratio', () => {
    const scenario = SCENARIOS.find((s) => s.name === 'gemini-gemini-sse')!;
    const target = (t: typeof bare) => ({ runs: [run(t.rounds[1]!.rps, { connections: 8, p50_ms: 0.5 }), ...t.runs.map((r) => ({ ...r, connections: 64 }))], rounds: t.rounds });
    const verdicts = scenarioVerdicts('node', scenario, { direct: { runs: [run(40000, { connections: 8 })] }, bare: target(bare), gateway: target(gateway) }, {});
    expect(verdicts.map((v) => v.text)).toContain('✓ thr 0.79× ≥ 0.7×');
  });

  it('compares the medians where there are no rounds to pair (one round, or an older results file)', () => {
    expect(pairedMedian({ runs: [run(11208)] }, { runs: [run(9893)] }, 64, throughputRatio)).toBeCloseTo(1.133, 3);
    // Rounds that cannot be paired one to one are not guessed at either.
    expect(pairedMedian(gateway, { runs: bare.runs, rounds: bare.rounds.slice(1) }, 64, throughputRatio)).toBeCloseTo(1.133, 3);
  });
});

describe('bench rounds with the thin gateway (--thin)', () => {
  it('rotates which target goes first, so each of three leads once in three rounds (two: alternate)', () => {
    expect([0, 1, 2].map((round) => rotation(3, round))).toEqual([[0, 1, 2], [1, 2, 0], [2, 0, 1]]);
    expect([0, 1, 2].map((round) => rotation(2, round))).toEqual([[0, 1], [1, 0], [0, 1]]);
  });

  it('takes --thin for the Node and Bun matrix runs only', () => {
    expect(parseArgs([]).thin).toBe(false);
    expect(parseArgs(['--thin', '--runtime', 'all']).thin).toBe(true);
    expect(() => parseArgs(['--thin', '--runtime', 'deno'])).toThrow(/--thin/);
    expect(() => parseArgs(['--thin', '--soak', '1000'])).toThrow(/--thin/);
  });

  it('reports the thin gateway beside the bare proxy and the gateway, from the same runs', () => {
    const target = (rps: number, p50 = 1) => ({ runs: [run(rps, { connections: 8, p50_ms: p50 }), run(rps, { connections: 64, cpu_us_per_req: 1e6 / rps })] });
    const scenario = SCENARIOS.find((s) => s.name === 'claude-anthropic-json')!;
    const result: RuntimeResult = {
      runtime: 'bun',
      version: 'bun 1.4.5',
      scenarios: { [scenario.name]: { direct: target(40000, 0.2), bare: target(30000, 0.3), gateway: target(12000, 0.8), thin: target(18000, 0.5) } },
      memory: { bare: { rss: 40 * MiB, peak: 49 * MiB }, gateway: { rss: 90 * MiB, peak: 108 * MiB }, thin: { rss: 55 * MiB, peak: 63 * MiB } },
      accounting: { accessLogLines: 0, usage: [] },
    };
    const md = thinMarkdown(result, SCENARIOS);
    expect(md).toContain('| Claude → Anthropic JSON (pass) | 30,000 / 18,000 / 12,000 | 0.60× | 0.40× | 0.67× | +0.300 / +0.600 ms | 33 / 56 / 83 |');
    expect(md).toContain('thin gateway 63.0 MiB, gateway 108.0 MiB, bare proxy 49.0 MiB');
    // Scenarios without a thin measurement are left out; none at all gives nothing.
    expect(md).not.toContain('SSE');
    expect(thinMarkdown({ ...result, scenarios: {} }, SCENARIOS)).toBe('');
  });
});

describe('memory after each scenario', () => {
  const target = { runs: [run(10000, { connections: 8 }), run(10000)] };
  const at = (peak: number, file: number, anon: number) => ({ rss: (file + anon) * MiB, peak: peak * MiB, file: file * MiB, anon: anon * MiB });
  const [json, sse] = ['claude-anthropic-json', 'claude-openai-sse'].map((name) => SCENARIOS.find((s) => s.name === name)!);
  const result: RuntimeResult = {
    runtime: 'bun',
    version: 'bun 1.4.5',
    scenarios: {
      [json!.name]: { direct: target, bare: target, gateway: target, memoryAfter: { bare: at(46, 36, 10), gateway: at(87.3, 40, 42.9) } },
      [sse!.name]: { direct: target, bare: target, gateway: target, memoryAfter: { bare: at(46.2, 36.1, 9.5), gateway: at(111.1, 40.5, 66.1) } },
    },
    memory: { bare: { rss: 40 * MiB, peak: 46.2 * MiB }, gateway: { rss: 90 * MiB, peak: 111.1 * MiB } },
    accounting: { accessLogLines: 0, usage: [] },
  };

  it('shows which scenario raised the peak, and whether the runtime’s own pages or its heap held it', () => {
    const lines = memoryAfterLines(result, SCENARIOS);
    // In the order run (SCENARIOS' order), only the scenarios that were read.
    expect(lines.filter((l) => l.startsWith('| Claude'))).toEqual([
      '| Claude → Anthropic JSON (pass) | 87.3 MiB | 40.0 + 42.9 MiB | 46.0 MiB | 36.0 + 10.0 MiB |',
      '| Claude → OpenAI-compat SSE (transl.) | 111.1 MiB | 40.5 + 66.1 MiB | 46.2 MiB | 36.1 + 9.5 MiB |',
    ]);
  });

  it('prints nothing for a results file from before the reading, and a dash where the kernel gives no split', () => {
    const old = { ...result, scenarios: { [json!.name]: { direct: target, bare: target, gateway: target } } };
    expect(memoryAfterLines(old, SCENARIOS)).toEqual([]);
    const unsplit = { rss: 80 * MiB, peak: 90 * MiB, file: Number.NaN, anon: Number.NaN };
    const lines = memoryAfterLines({ ...result, scenarios: { [json!.name]: { direct: target, bare: target, gateway: target, memoryAfter: { bare: unsplit, gateway: unsplit } } } }, SCENARIOS);
    expect(lines.at(-1)).toBe('| Claude → Anthropic JSON (pass) | 90.0 MiB | — | 90.0 MiB | — |');
  });
});

describe('translated throughput against its passthrough', () => {
  const target = (rps: number) => ({ runs: [run(rps, { connections: 8 }), run(rps, { connections: 64 })] });
  const translated = SCENARIOS.find((s) => s.name === 'claude-openai-sse')!;

  it("reads the passthrough measured in the translated row's own rotation, not the passthrough row run minutes before", () => {
    const own = { direct: target(40000), bare: target(12000), gateway: target(4000), passthrough: { runs: [run(9000)] } };
    // The passthrough's own row ran while the machine was twice as fast: against it, 4,000 would fail.
    const passRow = { direct: target(40000), bare: target(24000), gateway: target(18000) };
    const verdicts = scenarioVerdicts('node', translated, own, { [translated.passthroughRef!]: passRow });
    expect(verdicts.map((v) => v.text)).toContain('✗ 0.44× pass < 0.5×');
    const fast = scenarioVerdicts('node', translated, { ...own, passthrough: { runs: [run(7000)] } }, { [translated.passthroughRef!]: passRow });
    expect(fast.map((v) => v.text)).toContain('✓ 0.57× pass ≥ 0.5×');
  });

  it("falls back to the passthrough row for a result without one (an older results file)", () => {
    const old = { direct: target(40000), bare: target(12000), gateway: target(4000) };
    const verdicts = scenarioVerdicts('node', translated, old, { [translated.passthroughRef!]: { direct: target(40000), bare: target(20000), gateway: target(8000) } });
    expect(verdicts.map((v) => v.text)).toContain('✓ 0.50× pass ≥ 0.5×');
    expect(scenarioVerdicts('node', translated, old, {}).map((v) => v.text)).toContain(`n/a (run ${translated.passthroughRef} for the ratio)`);
    // That row's rounds ran in another rotation: they are not paired with this row's.
    const rounds = (rps: number[]) => rps.map((x) => run(x));
    const own = { ...old, gateway: { ...old.gateway, rounds: rounds([4000, 4000, 4000]) } };
    // Paired by index these would read 4.00×.
    const row = { direct: target(40000), bare: target(20000), gateway: { runs: [run(8000, { connections: 8 }), run(8000)], rounds: rounds([1000, 1000, 8000]) } };
    expect(scenarioVerdicts('node', translated, own, { [translated.passthroughRef!]: row }).map((v) => v.text)).toContain('✓ 0.50× pass ≥ 0.5×');
  });
});

describe('the leak check', () => {
  const marks = (p10: number, p50: number, p100: number) => [
    { percent: 10, peak: p10 * MiB },
    { percent: 50, peak: p50 * MiB },
    { percent: 100, peak: p100 * MiB },
  ];

  it('judges the second half: growth that stopped before half-way is warm-up', () => {
    // Node's 1,000,000-request soak of the thirty-seventh round: judged from 10%, it read ✗ +18.7.
    const verdict = soakVerdict(marks(95.8, 114.3, 114.5));
    expect(verdict.ok).toBe(true);
    expect(verdict.text).toBe('✓ peak RSS grew +0.2 MiB from 50% to 100% (flat: ≤ 16.0 MiB, the larger of 16 MiB and 10%); +18.5 MiB from 10% to 50% (warm-up, not judged)');
  });

  it('fails a leak of 40 bytes a request over 1,000,000 requests, which raises the second half by ~19 MiB', () => {
    const perRequest = 40 / MiB;
    const at = (requests: number) => 90 + requests * perRequest;
    expect(soakVerdict(marks(at(100_000), at(500_000), at(1_000_000))).ok).toBe(false);
    expect(soakVerdict(marks(at(100_000), at(500_000), at(1_000_000) - 4)).ok).toBe(true);
  });

  it('allows 10% of the half-way peak where that is more than 16 MiB', () => {
    expect(soakVerdict(marks(180, 200, 219.9)).ok).toBe(true);
    expect(soakVerdict(marks(180, 200, 220.1)).ok).toBe(false);
  });

  it('fails a soak without a half-way mark and a later one', () => {
    expect(soakVerdict([{ percent: 10, peak: MiB }, { percent: 100, peak: MiB }]).ok).toBe(false);
    expect(soakVerdict([]).ok).toBe(false);
  });
});
