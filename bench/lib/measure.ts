import { checkAnswer } from './check.ts';
import { coreBusyMicros, cpuMicros, type ProcMemory } from './proc-stats.ts';
import { requestInit } from './request.ts';
import { isBusy, isSlow, medianRun, runRounds, slowness, type LoadRun, type SpeedReading } from './rounds.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';
import type { Runtime, Server } from './servers.ts';
import { measureTtfb, type TtfbResult } from './ttfb.ts';
import { loadSecond, QUIET_RUNTIMES, warmUntilQuiet } from './warm-quiet.ts';
import { errorCount, runWrk } from './wrk.ts';

export interface TargetResult {
  /** One per connection count: with --rounds above 1, the medians of its rounds. */
  runs: LoadRun[];
  /** Every measured run of a bare proxy or gateway target, in the order run. */
  rounds?: LoadRun[];
  /** Runs of disturbed rounds that were run again (`--redo`), kept out of the medians. */
  redone?: LoadRun[];
  ttfb?: TtfbResult;
  /**
   * How long the target was loaded before its measured runs, and, where the runtime's compiler
   * threads were watched (warm-quiet.ts), whether they had gone quiet by then.
   */
  warmup?: { seconds: number; quiet?: boolean };
}

export interface ScenarioResult {
  direct: TargetResult;
  bare: TargetResult;
  gateway: TargetResult;
  /** With --thin, the thin gateway (bench/thin-gateway-*.ts), measured in the same rotation. */
  thin?: TargetResult;
  /**
   * A translated scenario's passthrough reference (`passthroughRef`) on the same gateway, at the
   * highest connection count, in the same rotation: the translated target's ratio compares runs
   * seconds apart, not minutes, on a machine whose speed drifts.
   */
  passthrough?: TargetResult;
  /**
   * The servers' memory once the scenario's runs were over: its peak so far and what was then
   * resident, so a report can show which scenario raised the run's peak and with what (absent in
   * results files from before the forty-second round).
   */
  memoryAfter?: { bare: ProcMemory; gateway: ProcMemory };
}

/** One server loaded in a scenario's rotation, with the request (path, wrk script) it gets. */
interface Target {
  server: Server;
  path: string;
  scenario: Scenario;
  name: string;
}

export interface MeasureOptions {
  wrk: string;
  serverCpu: number;
  loadCpu: number;
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  /** Disturbed rounds run again, at most this many per connection count (rounds.ts). */
  redo: number;
  connections: number[];
  ttfbCount: number;
  say: (line: string) => void;
  /** Times a fixed piece of work on the server's core; called before and after each run (speed-probe.ts). */
  speed?: () => Promise<SpeedReading>;
  /** The servers' runtime: on Bun and Node the warm-up goes on until their compilers are quiet. */
  runtime?: Runtime;
}

const origin = (port: number) => `http://127.0.0.1:${port}`;

export async function load(
  opts: MeasureOptions, url: string, scenario: Scenario, connections: number, server?: Server,
  custom?: { script: string; env: Record<string, string> },
): Promise<LoadRun> {
  const before = await opts.speed?.();
  const pid = server?.pid;
  const cpu0 = pid === undefined ? 0 : cpuMicros(pid);
  const core0 = coreBusyMicros(opts.serverCpu);
  const r = await runWrk(opts.wrk, opts.loadCpu, url, scenario.name, connections, opts.seconds, custom);
  server?.assertAlive(`${scenario.name} at ${connections} connections`);
  const cpu1 = pid === undefined ? 0 : cpuMicros(pid);
  const other = Math.max(0, coreBusyMicros(opts.serverCpu) - core0 - (cpu1 - cpu0)) / r.duration_us;
  // Probed on both sides: the machine's speed turns within seconds, so a spell that begins
  // during the run shows in the probe after it.
  const after = await opts.speed?.();
  const speed = before && after && after.probe_ms > before.probe_ms ? after : before;
  const run: LoadRun = {
    connections,
    rps: r.rps,
    p50_ms: r.latency_us.p50 / 1000,
    p99_ms: r.latency_us.p99 / 1000,
    requests: r.requests,
    errors: errorCount(r),
    // nginx alone (no server) runs on the load core: what the idle servers on the server's core
    // still do after the previous scenario (their compiler threads, a collection) cannot disturb it.
    ...(pid !== undefined && { cpu_us_per_req: (cpu1 - cpu0) / r.requests, other_load_pct: Math.round(other * 1000) / 10 }),
    ...speed,
  };
  const busy = (isBusy(run) ? `  ⚠ other processes on core ${opts.serverCpu}: ${run.other_load_pct}%` : '') +
    (isSlow(run) ? `  ⚠ slow machine: speed probe ${slowness(run).toFixed(2)}× its fastest` : '');
  const errs = run.errors ? `  ${run.errors} ERRORS ${JSON.stringify(r.errors)}` : '';
  opts.say(`    ${String(connections).padStart(3)} conn: ${Math.round(run.rps).toLocaleString('en-US').padStart(7)} req/s  p50 ${run.p50_ms.toFixed(3)} ms  p99 ${run.p99_ms.toFixed(3)} ms${run.cpu_us_per_req === undefined ? '' : `  ${run.cpu_us_per_req.toFixed(1)} µs CPU/req`}${errs}${busy}`);
  return run;
}

/**
 * One scenario: answers checked on every target first, then direct to nginx (lowest connection
 * count: the latency baseline), then the bare proxy, then the gateway (and the thin gateway, when
 * given: it serves the gateway's paths), each warmed up and run at every connection count; a
 * translated scenario's passthrough reference joins the rotation at the highest count. Then, for
 * SSE, time to first byte against the dripping upstream.
 */
export async function measureScenario(opts: MeasureOptions, scenario: Scenario, nginxPort: number, bare: Server, gateway: Server, thin?: Server): Promise<ScenarioResult> {
  const low = Math.min(...opts.connections);
  const highest = Math.max(...opts.connections);
  const reference = scenario.kind === 'translated' ? SCENARIOS.find((s) => s.name === scenario.passthroughRef) : undefined;
  await checkAnswer(origin(nginxPort), scenario.upstreamPath, scenario, scenario.upstreamFormat);
  await checkAnswer(origin(bare.port), scenario.upstreamPath, scenario, scenario.upstreamFormat);
  await checkAnswer(origin(gateway.port), scenario.gatewayPath, scenario, scenario.clientFormat);
  if (thin) await checkAnswer(origin(thin.port), scenario.gatewayPath, scenario, scenario.clientFormat);
  if (reference) await checkAnswer(origin(gateway.port), reference.gatewayPath, reference, reference.clientFormat);

  const nginx = await runRounds(1, 1, opts.redo, (_, __, again) => {
    opts.say(`  ${scenario.name}: direct (nginx)${again ? ' (again: disturbed)' : ''}`);
    return load(opts, origin(nginxPort) + scenario.upstreamPath, scenario, low);
  });
  const direct: TargetResult = { runs: nginx.kept[0]!, redone: nginx.redone[0]! };
  const targets: Target[] = [
    { server: bare, path: scenario.upstreamPath, scenario, name: bare.name },
    { server: gateway, path: scenario.gatewayPath, scenario, name: gateway.name },
    ...(thin ? [{ server: thin, path: scenario.gatewayPath, scenario, name: thin.name }] : []),
    ...(reference ? [{ server: gateway, path: reference.gatewayPath, scenario: reference, name: `${gateway.name} on ${reference.name}` }] : []),
  ];
  const url = (target: Target) => origin(target.server.port) + target.path;
  const results: TargetResult[] = [];
  for (const target of targets) {
    const warmup = await warmUp(opts, url(target), target, highest);
    results.push({ runs: [], rounds: [], redone: [], ...(warmup && { warmup }) });
  }
  // Alternating the targets, and rotating which goes first, spreads a drifting machine's speed
  // over all of them instead of loading it onto whichever ran later.
  for (const c of opts.connections) {
    // The passthrough reference only feeds the throughput ratio, read at the highest count.
    const present = targets.map((_, i) => i).filter((i) => c === highest || targets[i]!.scenario === scenario);
    const { kept, redone } = await runRounds(present.length, opts.rounds, opts.redo, (k, round, again) => {
      const target = targets[present[k]!]!;
      opts.say(`  ${scenario.name}: ${target.name}${opts.rounds > 1 ? `, round ${round + 1} of ${opts.rounds}` : ''}${again ? ' (again: disturbed)' : ''}`);
      return load(opts, url(target), target.scenario, c, target.server);
    });
    present.forEach((t, k) => {
      results[t]!.rounds!.push(...kept[k]!);
      results[t]!.redone!.push(...redone[k]!);
      results[t]!.runs.push(medianRun(kept[k]!));
    });
  }
  const result: ScenarioResult = {
    direct,
    bare: results[0]!,
    gateway: results[1]!,
    ...(thin && { thin: results[2]! }),
    ...(reference && { passthrough: results[targets.length - 1]! }),
  };

  if (scenario.drip && opts.ttfbCount > 0) {
    const { drip } = scenario;
    const plain = requestInit(scenario);
    const withModel = requestInit(scenario, drip.model);
    result.direct.ttfb = await measureTtfb(origin(nginxPort), drip.upstreamPath, plain, opts.ttfbCount);
    result.bare.ttfb = await measureTtfb(origin(bare.port), drip.upstreamPath, plain, opts.ttfbCount);
    result.gateway.ttfb = await measureTtfb(origin(gateway.port), drip.gatewayPath, withModel, opts.ttfbCount);
    const f = (t: TtfbResult) => `${t.ttfb.p50.toFixed(3)} ms`;
    opts.say(`    time to first byte p50 (drip): direct ${f(result.direct.ttfb)}, bare ${f(result.bare.ttfb)}, gateway ${f(result.gateway.ttfb)}`);
  }
  return result;
}

/**
 * The fixed warm-up (`--warmup`), then, where the runtime's compiler threads can be read apart
 * from its collector's, a second at a time until they are quiet (warm-quiet.ts).
 */
async function warmUp(opts: MeasureOptions, url: string, target: Target, connections: number): Promise<TargetResult['warmup']> {
  if (opts.warmupSeconds <= 0) return undefined;
  const once = (seconds: number) => runWrk(opts.wrk, opts.loadCpu, url, target.scenario.name, connections, seconds);
  await once(opts.warmupSeconds);
  const { runtime } = opts;
  if (!runtime || !QUIET_RUNTIMES.includes(runtime)) return { seconds: opts.warmupSeconds };
  const { seconds, quiet } = await warmUntilQuiet(() => loadSecond(runtime, target.server.pid, () => once(1)));
  const total = opts.warmupSeconds + seconds;
  opts.say(`  ${target.scenario.name}: ${target.name} warmed up for ${total} s${quiet ? '' : ', its compiler still at work'}`);
  return { seconds: total, quiet };
}
