import type { ScenarioResult, TargetResult } from './measure.ts';
import { isBusy, isDisturbed, isSlow, OTHER_LOAD_WARN_PCT, pairedMedian, SLOW_PROBE_RATIO, slowness, throughputRatio, type LoadRun } from './rounds.ts';
import type { ProcMemory } from './proc-stats.ts';
import type { Scenario } from './scenarios.ts';
import type { Runtime } from './servers.ts';
import { median, MiB } from './stats.ts';
import { MAX_QUIET_SECONDS, QUIET_COMPILER_SHARE } from './warm-quiet.ts';
import { high, low, rssVerdict, scenarioVerdicts, soakVerdict } from './verdicts.ts';

export interface RuntimeResult {
  runtime: Runtime;
  version: string;
  scenarios: Record<string, ScenarioResult>;
  memory: { bare: { rss: number; peak: number }; gateway: { rss: number; peak: number }; thin?: { rss: number; peak: number } };
  accounting: { accessLogLines: number; usage: Array<{ group: string; requests: number; outputTokens: number }> };
}

export interface SoakResult {
  runtime: Runtime;
  scenario: string;
  storage: 'memory' | 'sqlite';
  target: number;
  /** wrk connect/read/write/timeout errors and non-2xx answers. */
  errors: number;
  samples: Array<{ requests: number; rss: number; peak: number; rps: number }>;
  marks: Array<{ percent: number; requests: number; rss: number; peak: number }>;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const f3 = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`;
const f2 = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;
const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;

/** A scenario's targets in the runtime's table (the thin gateway has a table of its own). */
const tableTargets = (x: ScenarioResult): TargetResult[] => [x.direct, x.bare, x.gateway, ...(x.passthrough ? [x.passthrough] : [])];

/** What made the rows marked ⚠ unreliable, over the runs kept (medians: their worst round). */
export function disturbedLine(runs: readonly LoadRun[]): string {
  const busy = runs.filter(isBusy);
  const slow = runs.filter(isSlow);
  if (!busy.length && !slow.length) return '';
  const parts = [
    ...(busy.length ? [`other processes took ≥ ${OTHER_LOAD_WARN_PCT}% of the server's core in ${busy.length} of ${runs.length} runs (up to ${Math.max(...busy.map((run) => run.other_load_pct ?? 0))}%)`] : []),
    ...(slow.length ? [`it was slow in ${slow.length} of ${runs.length} (a speed probe before or after them took ≥ ${SLOW_PROBE_RATIO}× its fastest time, up to ${Math.max(...slow.map(slowness)).toFixed(2)}×)`] : []),
  ];
  return `⚠ The machine was not quiet: ${parts.join('; ')}; rows marked ⚠ are unreliable.`;
}

/**
 * How quick the machine was, in the probe's own milliseconds: the ⚠ marks compare each run with
 * the command's fastest probe, so a run that was slow from start to end has none, and only this
 * line tells it from a quick one (bench/README.md gives this machine's quick readings).
 */
export function speedLine(runs: readonly LoadRun[]): string {
  const ms = runs.flatMap((run) => (run.probe_ms === undefined ? [] : [run.probe_ms]));
  if (!ms.length) return '';
  const fastest = Math.min(...ms, ...runs.flatMap((run) => (run.probe_fastest_ms === undefined ? [] : [run.probe_fastest_ms])));
  return `Speed probe (\`bench/lib/speed-probe.mjs\` on the server's core): the command's fastest reading up to this table's last run ${fastest.toFixed(0)} ms; the median over the ${ms.length} runs kept, each round counted and each the slower of its readings before and after it, ${median(ms).toFixed(0)} ms.`;
}

/**
 * How many rounds were run again because they were busy or slow (rounds.ts): a run whose
 * tables are clean only because its disturbed rounds were set aside says so.
 */
export function redoneLine(r: RuntimeResult, redo: number | undefined): string {
  let redone = 0;
  let kept = 0;
  for (const x of Object.values(r.scenarios)) {
    // The bare proxy runs in every round, so its runs count the rounds (nginx's direct run: one more).
    for (const t of [x.direct, x.bare]) {
      redone += t.redone?.length ?? 0;
      kept += t.rounds?.length ?? t.runs.length;
    }
  }
  if (!redone) return '';
  return `${redone} of ${redone + kept} rounds were run again (\`--redo ${redo ?? '?'}\`): other processes took ≥ ${OTHER_LOAD_WARN_PCT}% of the server's core during them, or the machine was slow around them. Their runs are set aside in the results file (\`redone\`), not in these medians.`;
}

export function runtimeMarkdown(r: RuntimeResult, scenarios: Scenario[], meta: { seconds: number; rounds: number; redo?: number; connections: number[]; dripMs: number; storage: string; tls?: boolean }): string {
  const lo = Math.min(...meta.connections);
  const hi = Math.max(...meta.connections);
  const lines: string[] = [];
  lines.push(`### ${r.runtime} (${r.version}): gateway vs bare ${r.runtime} proxy, same run${meta.tls ? ', both calling nginx over TLS' : ''}`);
  lines.push('');
  const rounds = meta.rounds > 1 ? `, bare proxy and gateway alternating, each number the median of ${meta.rounds} runs (gw÷bare and the verdicts' ratios and differences: the median of each round's own, the gateway against the bare proxy's run beside it)` : '';
  lines.push(`wrk -t1, ${meta.seconds} s per run${rounds}; server on core 0, wrk + nginx on core 1. "added" = over calling nginx directly; SSE latency = time to last byte; "pass" = a translated row's throughput ÷ its passthrough's, the passthrough run on the gateway in the translated row's own rotation at ${hi} connections.`);
  const warmup = warmupLine(r, scenarios);
  if (warmup) lines.push('', warmup);
  lines.push('');
  lines.push(`| scenario | req/s @${hi} gw / bare | gw÷bare | direct p50 / p99 @${lo} | added p50 @${lo} gw / bare | added p99 @${lo} gw / bare | CPU µs/req gw / bare | verdict |`);
  lines.push('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const s of scenarios) {
    const x = r.scenarios[s.name];
    if (!x) continue;
    const d = low(x.direct.runs);
    const [gl, bl, gh, bh] = [low(x.gateway.runs), low(x.bare.runs), high(x.gateway.runs), high(x.bare.runs)];
    const noisy = tableTargets(x).some((t) => t.runs.some(isDisturbed));
    const verdicts = (noisy ? '⚠ ' : '') + (scenarioVerdicts(r.runtime, s, x, r.scenarios).map((v) => v.text).join('; ') || '—');
    lines.push(
      `| ${s.label} | ${int(gh.rps)} / ${int(bh.rps)} | ${pairedMedian(x.gateway, x.bare, hi, throughputRatio).toFixed(2)}× | ${d.p50_ms.toFixed(3)} / ${d.p99_ms.toFixed(2)} ms` +
        ` | ${f3(gl.p50_ms - d.p50_ms)} / ${f3(bl.p50_ms - d.p50_ms)} ms | ${f2(gl.p99_ms - d.p99_ms)} / ${f2(bl.p99_ms - d.p99_ms)} ms` +
        ` | ${int(gh.cpu_us_per_req ?? NaN)} / ${int(bh.cpu_us_per_req ?? NaN)} | ${verdicts} |`,
    );
  }
  const runs = Object.values(r.scenarios).flatMap((x) => tableTargets(x).flatMap((t) => t.runs));
  const disturbed = disturbedLine(runs);
  if (disturbed) lines.push('', disturbed);
  // Every run measured and kept, not the medians (each holds its slowest round's probe).
  const speed = speedLine(Object.values(r.scenarios).flatMap((x) => [...tableTargets(x), ...(x.thin ? [x.thin] : [])].flatMap((t) => t.rounds ?? t.runs)));
  if (speed) lines.push('', speed);
  const redone = redoneLine(r, meta.redo);
  if (redone) lines.push('', redone);
  const streams = scenarios.filter((s) => r.scenarios[s.name]?.gateway.ttfb);
  if (streams.length) {
    lines.push('');
    lines.push(`Time to first byte, SSE, sequential requests on one connection; the upstream sends its first events at once and the rest ${meta.dripMs} ms later:`);
    lines.push('');
    lines.push('| scenario | TTFB p50 direct | bare | gateway | gateway − bare | gateway TTFB p90 | gateway TTLB p50 |');
    lines.push('|---|---:|---:|---:|---:|---:|---:|');
    for (const s of streams) {
      const x = r.scenarios[s.name]!;
      const [d, b, g] = [x.direct.ttfb!, x.bare.ttfb!, x.gateway.ttfb!];
      lines.push(
        `| ${s.label} | ${d.ttfb.p50.toFixed(3)} ms | ${b.ttfb.p50.toFixed(3)} ms | ${g.ttfb.p50.toFixed(3)} ms | ${f3(g.ttfb.p50 - b.ttfb.p50)} ms | ${g.ttfb.p90.toFixed(3)} ms | ${g.ttlb.p50.toFixed(2)} ms |`,
      );
    }
  }
  lines.push('');
  lines.push('| process (the one listening) | peak RSS (VmHWM) over the whole run | RSS at end | verdict |');
  lines.push('|---|---:|---:|---|');
  lines.push(`| bare ${r.runtime} proxy | ${mib(r.memory.bare.peak)} | ${mib(r.memory.bare.rss)} | |`);
  const v = rssVerdict(r.runtime, r.memory.gateway.peak);
  lines.push(`| gateway | ${mib(r.memory.gateway.peak)} | ${mib(r.memory.gateway.rss)} | ${v ? v.text : '— (no target)'} |`);
  lines.push(...memoryAfterLines(r, scenarios));
  lines.push('');
  const usage = r.accounting.usage.map((u) => `${u.group} ${int(u.requests)} (${int(u.outputTokens)} output tokens)`).join(', ');
  lines.push(`Gateway switched on: static key auth, model resolution, usage accounting (storage: ${meta.storage}) and access log: ${int(r.accounting.accessLogLines)} access-log lines; usage records by model: ${usage || 'none'}.`);
  return lines.join('\n');
}

/**
 * How long the targets warmed up where their compilers were watched (warm-quiet.ts): the range
 * over the scenarios, for the gateway and the bare proxy.
 */
export function warmupLine(r: RuntimeResult, scenarios: Scenario[]): string | undefined {
  const watched = (pick: (x: ScenarioResult) => TargetResult) =>
    scenarios.flatMap((s) => {
      const warmup = r.scenarios[s.name] && pick(r.scenarios[s.name]!).warmup;
      return warmup?.quiet === undefined ? [] : [warmup];
    });
  const gateway = watched((x) => x.gateway);
  if (!gateway.length) return undefined;
  const range = (ws: Array<{ seconds: number }>) => {
    const lo = Math.min(...ws.map((w) => w.seconds));
    const hi = Math.max(...ws.map((w) => w.seconds));
    return lo === hi ? `${lo} s` : `${lo}–${hi} s`;
  };
  const bare = watched((x) => x.bare);
  const busy = gateway.filter((w) => !w.quiet).length;
  const still = busy ? `; the gateway's compiler was still at work after the longest in ${busy} scenario${busy > 1 ? 's' : ''}` : '';
  return `Warm-up: each target was loaded at the highest connection count for the fixed warm-up, then a second at a time until its JIT compiler threads took under ${QUIET_COMPILER_SHARE * 100}% of its CPU in a second (at most ${MAX_QUIET_SECONDS} s more): the gateway ${range(gateway)} per scenario${bare.length ? `, the bare proxy ${range(bare)}` : ''}${still}.`;
}

/**
 * The servers' memory read after each scenario, in the order run: which scenario raised the run's
 * peak, and whether what was resident then was the runtime's own pages or heap and allocator pages.
 */
export function memoryAfterLines(r: RuntimeResult, scenarios: Scenario[]): string[] {
  const read = scenarios.filter((s) => r.scenarios[s.name]?.memoryAfter);
  if (!read.length) return [];
  const parts = (m: ProcMemory) => (Number.isFinite(m.file) && Number.isFinite(m.anon) ? `${(m.file / MiB).toFixed(1)} + ${(m.anon / MiB).toFixed(1)} MiB` : '—');
  const lines = [
    '',
    'Memory after each scenario, in the order run: the peak so far (VmHWM), and what was resident then as file pages (the runtime\'s executable and libraries, RssFile) + anonymous memory (heap, allocator pages, JIT code, RssAnon):',
    '',
    '| after | gateway peak so far | gateway resident: file + anon | bare proxy peak so far | bare proxy resident: file + anon |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const s of read) {
    const { gateway, bare } = r.scenarios[s.name]!.memoryAfter!;
    lines.push(`| ${s.label} | ${mib(gateway.peak)} | ${parts(gateway)} | ${mib(bare.peak)} | ${parts(bare)} |`);
  }
  return lines;
}

/**
 * With --thin: the thin gateway between the bare proxy and the gateway on the scenarios it serves,
 * from the same rotation of runs. What the gateway costs above it is the price of its generality;
 * what the thin gateway costs above the bare proxy, the least the features cost.
 */
export function thinMarkdown(r: RuntimeResult, scenarios: Scenario[]): string {
  const rows = scenarios.filter((s) => r.scenarios[s.name]?.thin);
  if (!rows.length) return '';
  const sample = r.scenarios[rows[0]!.name]!;
  const lo = low(sample.gateway.runs).connections;
  const hi = high(sample.gateway.runs).connections;
  const lines = [
    `#### ${r.runtime}: thin gateway (bench/thin-gateway-${r.runtime}.ts) beside the bare proxy and the gateway, same run`,
    '',
    "The targets' features in one function: key, body parsed and its model spliced, abort and header time-out, usage read, a usage record, a buffered access-log line. Measured in the same rotation as the bare proxy and the gateway.",
    '',
    `| scenario | req/s @${hi} bare / thin / gw | thin÷bare | gw÷bare | gw÷thin | added p50 @${lo} thin / gw | CPU µs/req bare / thin / gw |`,
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of rows) {
    const x = r.scenarios[s.name]!;
    const d = low(x.direct.runs);
    const [b, t, g] = [high(x.bare.runs), high(x.thin!.runs), high(x.gateway.runs)];
    const ratio = (p: TargetResult, q: TargetResult) => `${pairedMedian(p, q, hi, throughputRatio).toFixed(2)}×`;
    const noisy = x.thin!.runs.some(isDisturbed) ? ' ⚠' : '';
    lines.push(
      `| ${s.label}${noisy} | ${int(b.rps)} / ${int(t.rps)} / ${int(g.rps)} | ${ratio(x.thin!, x.bare)} | ${ratio(x.gateway, x.bare)} | ${ratio(x.gateway, x.thin!)}` +
        ` | ${f3(low(x.thin!.runs).p50_ms - d.p50_ms)} / ${f3(low(x.gateway.runs).p50_ms - d.p50_ms)} ms | ${int(b.cpu_us_per_req ?? NaN)} / ${int(t.cpu_us_per_req ?? NaN)} / ${int(g.cpu_us_per_req ?? NaN)} |`,
    );
  }
  if (r.memory.thin) lines.push('', `Peak RSS over the whole run: thin gateway ${mib(r.memory.thin.peak)}, gateway ${mib(r.memory.gateway.peak)}, bare proxy ${mib(r.memory.bare.peak)}.`);
  return lines.join('\n');
}

export function soakMarkdown(s: SoakResult): string {
  const lines = [`### ${s.runtime}: leak check, ${int(s.target)} requests of ${s.scenario} (64 conn, usage storage: ${s.storage})`, ''];
  lines.push('| progress | requests | RSS | peak RSS (VmHWM) |', '|---:|---:|---:|---:|');
  for (const m of s.marks) lines.push(`| ${m.percent}% | ${int(m.requests)} | ${mib(m.rss)} | ${mib(m.peak)} |`);
  if (s.marks.length) lines.push('', `Verdict: ${soakVerdict(s.marks).text}${s.errors ? `; ✗ ${int(s.errors)} wrk errors` : ''}.`);
  return lines.join('\n');
}
