/**
 * Where the gateway's CPU goes under load: `npm run bench:profile -- [--runtime bun|node|deno]
 * [--bare | --thin] [--scenario NAME] [--seconds 3] [--warmup 2] [--connections 64] [--frequency 999] [--top 20]
 * [--syscalls] [--gc] [--tls]`.
 * Needs perf (Debian: linux-perf) besides nginx and wrk. See bench/README.md, "Profile".
 *
 * Two runs. Without a profiler: CPU per request per thread from /proc. Under `perf record` with
 * call chains, JavaScript frames named through Bun's JITDump (converted to a perf map,
 * bench/lib/jitdump.ts) or V8's --perf-basic-prof (Node, Deno): the samples of the measured run summed per
 * thread and, on the main thread, by the innermost JavaScript function that led to them
 * (bench/lib/perf-samples.ts). With --syscalls, a third run under `strace -c -f` counts system
 * calls per request by name. With --gc, a server started with its collector's log on (Bun's
 * BUN_JSC_logGC, V8's --trace-gc) counts collections and their time per request over one more
 * load run (bench/lib/gc-log.ts). With --tls the server calls nginx over https (its TLS port, the test
 * authority trusted through NODE_EXTRA_CA_CERTS). Bun's own --cpu-prof sees only JavaScript and, under load, put a
 * third of its samples on functions that did not run.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDrip } from './lib/drip.ts';
import { gatewayConfig } from './lib/gateway-config.ts';
import { readJitDump, writePerfMap } from './lib/jitdump.ts';
import { BENCH_CA, startNginx } from './lib/nginx.ts';
import { attributionMarkdown, createAttribution, readPerfScript } from './lib/perf-samples.ts';
import { cpuMicros, listeningPid, minorFaults, threadCpu, threadCpuPerRequest, type ThreadCpuRow } from './lib/proc-stats.ts';
import { installCleanup, launch, onExit, pinSelf, stop, stopAll, waitListening, which } from './lib/procs.ts';
import { SCENARIOS } from './lib/scenarios.ts';
import { gcMarkdown, readGcLog } from './lib/gc-log.ts';
import { readStraceSummary, syscallMarkdown } from './lib/syscall-counts.ts';
import { RUNTIMES, runtimeCommand, type Runtime } from './lib/servers.ts';
import { THIN_RUNTIMES, THIN_SCENARIOS } from './lib/thin-gateway.ts';
import { loadSecond, QUIET_RUNTIMES, warmUntilQuiet } from './lib/warm-quiet.ts';
import { errorCount, runWrk, type WrkResult } from './lib/wrk.ts';

const SERVER_CPU = 0;
const LOAD_CPU = 1;
const say = (line: string) => console.error(line);

interface ProfileArgs {
  runtime: Runtime;
  /** The bare proxy of the same runtime instead of the gateway, for comparison. */
  bare: boolean;
  /** The thin gateway of the same runtime instead (Bun, Node), on its one route. */
  thin: boolean;
  /** A run under strace counting system calls per request. */
  syscalls: boolean;
  /** A run with the collector's log on. */
  gc: boolean;
  /** Upstream calls over TLS. */
  tls: boolean;
  scenario: string;
  seconds: number;
  warmup: number;
  connections: number;
  frequency: number;
  top: number;
}

function readArgs(argv: string[]): ProfileArgs {
  const args: ProfileArgs = { runtime: 'bun', bare: false, thin: false, syscalls: false, gc: false, tls: false, scenario: 'claude-anthropic-json', seconds: 3, warmup: 2, connections: 64, frequency: 999, top: 20 };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!;
    if (name === '--bare' || name === '--thin') {
      args[name === '--bare' ? 'bare' : 'thin'] = true;
      continue;
    }
    if (name === '--syscalls' || name === '--tls' || name === '--gc') {
      args[name === '--tls' ? 'tls' : name === '--gc' ? 'gc' : 'syscalls'] = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${name} needs a value`);
    const number = () => {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: a positive number, not "${value}"`);
      return n;
    };
    if (name === '--runtime') {
      if (!RUNTIMES.includes(value as Runtime)) throw new Error(`--runtime: one of ${RUNTIMES.join(', ')}`);
      args.runtime = value as Runtime;
    } else if (name === '--scenario') {
      if (!SCENARIOS.some((s) => s.name === value)) throw new Error(`--scenario: one of ${SCENARIOS.map((s) => s.name).join(', ')}`);
      args.scenario = value;
    } else if (name === '--seconds') args.seconds = number();
    else if (name === '--warmup') args.warmup = number();
    else if (name === '--connections') args.connections = Math.round(number());
    else if (name === '--frequency') args.frequency = Math.round(number());
    else if (name === '--top') args.top = Math.round(number());
    else throw new Error(`unknown option ${name}`);
  }
  if (args.bare && args.thin) throw new Error('--bare or --thin, not both');
  if (args.thin && (!THIN_RUNTIMES.includes(args.runtime) || !THIN_SCENARIOS.includes(args.scenario))) {
    throw new Error(`--thin: Bun or Node, scenarios ${THIN_SCENARIOS.join(', ')}`);
  }
  return args;
}

function threadMarkdown(rows: readonly ThreadCpuRow[]): string {
  const us = (n: number) => (Number.isNaN(n) ? '–' : n.toFixed(1));
  return ['| thread | user µs | system µs | µs/request |', '|---|---:|---:|---:|', ...rows.map((r) => `| ${r.thread} | ${us(r.user)} | ${us(r.system)} | ${us(r.total)} |`)].join('\n');
}

/** The runtime's arguments with V8's perf map switched on (Bun's JITDump is set in the environment). */
function perfMapArgs(runtime: Runtime, args: string[]): string[] {
  if (runtime === 'node') return ['--perf-basic-prof', ...args];
  // `deno run -A entry …`: V8 flags go with the subcommand's options.
  if (runtime === 'deno') return [args[0]!, '--v8-flags=--perf-basic-prof', ...args.slice(1)];
  return args;
}

/** The same server's system calls by name over one more load run, under `strace -c -f`. */
async function countSyscalls(pid: number, wrk: string, url: string, scenario: string, args: ProfileArgs): Promise<string> {
  const strace = which('strace');
  if (!strace) throw new Error('--syscalls needs strace (Debian: apt-get install -y strace)');
  const traced = launch(LOAD_CPU, strace, ['-c', '-f', '-p', String(pid)], {});
  // Time for strace to attach to every thread; what the idle server does meanwhile (a few timer
  // calls) is counted too, against the tens of thousands of the run.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const run = await measuredRun(wrk, url, scenario, args);
  const ended = new Promise<void>((resolve) => traced.child.once('close', () => resolve()));
  process.kill(traced.child.pid!, 'SIGINT');
  await ended;
  const rows = readStraceSummary(traced.stderr());
  if (rows.length === 0) throw new Error(`strace printed no summary: ${traced.stderr().slice(-500)}`);
  return [`Under strace -c -f (${Math.round(run.rps).toLocaleString('en-US')} req/s; counts, not times), system calls per request:`, '', syscallMarkdown(rows, run.requests)].join('\n');
}

/**
 * A measured load run: refused if any request failed (a status other than 2xx or 3xx, a socket
 * error), since a server answering errors does other, cheaper work than the scenario's.
 */
async function measuredRun(wrk: string, url: string, scenario: string, args: ProfileArgs): Promise<WrkResult> {
  const run = await runWrk(wrk, LOAD_CPU, url, scenario, args.connections, args.seconds);
  if (errorCount(run) > 0) throw new Error(`${url}: ${errorCount(run)} of ${run.requests} requests failed (${JSON.stringify(run.errors)})`);
  return run;
}

/**
 * The fixed warm-up (`--warmup`), then, on Bun and Node, a second at a time until the compiler
 * threads are quiet, as `npm run bench` warms its targets (bench/lib/warm-quiet.ts): after the
 * fixed 2 s alone, Bun's JIT threads still took 20.4 µs of a Claude-style SSE passthrough's
 * ~123 (forty-ninth round), and what they compiled was still changing what the main thread ran.
 */
async function warmUp(wrk: string, url: string, scenario: string, args: ProfileArgs, pid: number, what: string): Promise<void> {
  await runWrk(wrk, LOAD_CPU, url, scenario, args.connections, args.warmup);
  if (!QUIET_RUNTIMES.includes(args.runtime)) return;
  const { seconds, quiet } = await warmUntilQuiet(() => loadSecond(args.runtime, pid, () => runWrk(wrk, LOAD_CPU, url, scenario, args.connections, 1)));
  say(`profile: ${what} warmed up for ${args.warmup + seconds} s${quiet ? '' : ', its compiler still at work'}`);
}

/** The runtime's arguments with its collector's log on (Bun's is set in the environment). */
function gcLogArgs(runtime: Runtime, args: string[]): string[] {
  if (runtime === 'node') return ['--trace-gc', ...args];
  if (runtime === 'deno') return [args[0]!, '--v8-flags=--trace-gc', ...args.slice(1)];
  return args;
}

/**
 * Collections and their time per request over one more load run, on a server started afresh
 * with its collector's log on (warmed up first, as the other runs are); the log of the measured
 * run alone is read. Bun, Claude → Gemini SSE: 55.4–55.6 KiB allocated per request after 2 s of
 * warm-up, 55.6–55.8 after 10 (the time per request moves more from run to run: 7.4–10.1 µs).
 */
async function measureGc(server: { cmd: string; args: string[]; env: Record<string, string>; path: string }, dir: string, wrk: string, scenario: string, args: ProfileArgs): Promise<string> {
  const out = join(dir, 'gc-stdout.log');
  const err = join(dir, 'gc-stderr.log');
  const env = args.runtime === 'bun' ? { ...server.env, BUN_JSC_logGC: '1' } : server.env;
  const logged = launch(SERVER_CPU, server.cmd, gcLogArgs(args.runtime, server.args), { env, stdoutFile: out, stderrFile: err });
  const port = await waitListening(logged, `${args.runtime} server with its collector's log on`);
  const url = `http://127.0.0.1:${port}${server.path}`;
  await warmUp(wrk, url, scenario, args, listeningPid(logged.child.pid!, port), 'the server with its collector\'s log on');
  const size = (file: string) => readFileSync(file).length;
  const from = { out: size(out), err: size(err) };
  const run = await measuredRun(wrk, url, scenario, args);
  const log = readFileSync(out).subarray(from.out).toString('utf8') + readFileSync(err).subarray(from.err).toString('utf8');
  await stop(logged.child);
  const summary = readGcLog(args.runtime, log);
  if (Object.keys(summary.kinds).length === 0) throw new Error(`--gc: no collection in the log of ${run.requests} requests (${args.runtime})`);
  return [`With the collector's log on (${Math.round(run.rps).toLocaleString('en-US')} req/s), collections over the run:`, '', gcMarkdown(summary, run.requests)].join('\n');
}

const monotonicSeconds = () => Number(process.hrtime.bigint()) / 1e9;

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  const perf = which('perf');
  const nginx = which('nginx', ['/usr/sbin/nginx']);
  const wrk = which('wrk', ['/usr/bin/wrk']);
  if (!perf || !nginx || !wrk) throw new Error('bench:profile needs perf, nginx and wrk (Debian: apt-get install -y linux-perf nginx wrk)');
  const scenario = SCENARIOS.find((s) => s.name === args.scenario)!;
  installCleanup();
  pinSelf(LOAD_CPU);
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-profile-'));
  chmodSync(dir, 0o711);
  let mapFile: string | undefined;
  const drip = await startDrip(20);
  onExit(() => {
    drip.server.close();
    rmSync(dir, { recursive: true, force: true });
    if (mapFile) rmSync(mapFile, { force: true });
  });

  const upstream = await startNginx(nginx, join(dir, 'nginx'), LOAD_CPU, drip.port);
  const configPath = join(dir, 'switchyard.json');
  const upstreamPort = args.tls ? upstream.tlsPort : upstream.port;
  writeFileSync(configPath, JSON.stringify(gatewayConfig(upstreamPort, 'memory', args.tls ? 'https' : 'http')));
  const entry = args.bare ? `bench/bare-proxy-${args.runtime}.ts` : args.thin ? `bench/thin-gateway-${args.runtime}.ts` : `adapters/${args.runtime}.ts`;
  const [cmd, cmdArgs] = runtimeCommand(args.runtime, entry, args.bare ? [] : ['--config', configPath]);
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM: `${args.tls ? 'https' : 'http'}://127.0.0.1:${upstreamPort}`,
    ...(args.tls ? { NODE_EXTRA_CA_CERTS: BENCH_CA } : {}),
  };
  const path = args.bare ? scenario.upstreamPath : scenario.gatewayPath;
  const what = args.bare ? `bare ${args.runtime} proxy` : args.thin ? `thin ${args.runtime} gateway` : `${args.runtime} gateway`;

  // First without perf: CPU per thread from /proc, which the profiler does not slow down.
  const plain = launch(SERVER_CPU, cmd, cmdArgs, { env, stdoutFile: join(dir, 'access-plain.log') });
  const plainPort = await waitListening(plain, `${what} (${cmd})`);
  const plainPid = listeningPid(plain.child.pid!, plainPort);
  say(`profile: ${what} pid ${plainPid} on core ${SERVER_CPU} without perf, ${scenario.name}, ${args.connections} connections`);
  const url = `http://127.0.0.1:${plainPort}${path}`;
  await warmUp(wrk, url, scenario.name, args, plainPid, what);
  const before = { threads: threadCpu(plainPid), total: cpuMicros(plainPid), faults: minorFaults(plainPid) };
  const plainRun = await measuredRun(wrk, url, scenario.name, args);
  if (plainRun.requests === 0) throw new Error(`no request completed under load (${what}, without perf)`);
  const threads = threadCpuPerRequest(before.threads, threadCpu(plainPid), cpuMicros(plainPid) - before.total, plainPid, plainRun.requests);
  const faultsPerRequest = (minorFaults(plainPid) - before.faults) / plainRun.requests;
  const syscalls = args.syscalls ? await countSyscalls(plainPid, wrk, url, scenario.name, args) : undefined;
  await stop(plain.child);
  const gc = args.gc ? await measureGc({ cmd, args: cmdArgs, env, path }, dir, wrk, scenario.name, args) : undefined;

  // V8 (Node, Deno) writes /tmp/perf-<pid>.map itself; Bun's JITDump is converted after the run.
  const profiledArgs = perfMapArgs(args.runtime, cmdArgs);
  const data = join(dir, 'perf.data');
  // perf on the load core, the gateway alone on its own, as in `npm run bench`.
  const recorded = launch(LOAD_CPU, perf, ['record', '-k', '1', '-F', String(args.frequency), '-g', '-o', data, '--', 'taskset', '-c', String(SERVER_CPU), cmd, ...profiledArgs], {
    env: { ...env, BUN_JSC_useJITDump: '1', BUN_JSC_jitDumpDirectory: dir },
    stdoutFile: join(dir, 'access.log'),
  });
  const port = await waitListening(recorded, `${what} under perf (${cmd})`);
  const pid = listeningPid(recorded.child.pid!, port);
  say(`profile: ${what} pid ${pid} under perf at ${args.frequency} Hz`);
  const profiledUrl = `http://127.0.0.1:${port}${path}`;
  await warmUp(wrk, profiledUrl, scenario.name, args, pid, `${what} under perf`);
  const from = monotonicSeconds();
  const run = await measuredRun(wrk, profiledUrl, scenario.name, args);
  const to = monotonicSeconds();
  if (run.requests === 0) throw new Error(`no request completed under load (${what}, under perf)`);

  // perf writes its data once the process it runs has ended.
  const exited = new Promise<boolean>((resolve) => recorded.child.once('close', () => resolve(true)));
  process.kill(pid, 'SIGTERM');
  if (!(await Promise.race([exited, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000))]))) {
    throw new Error(`perf record did not end within 15 s of stopping the ${what}`);
  }
  // perf script reads /tmp/perf-<pid>.map; V8 wrote it, Bun's JITDump is converted into it.
  mapFile = `/tmp/perf-${pid}.map`;
  if (args.runtime === 'bun') {
    const dump = readdirSync(dir).find((name) => /^jit-.*\.dump$/.test(name));
    if (!dump) throw new Error(`no JITDump in ${dir}: Bun ignored BUN_JSC_useJITDump`);
    writeFileSync(mapFile, writePerfMap(readJitDump(readFileSync(join(dir, dump)))));
  }

  const script = spawnSync(perf, ['script', '-i', data, '-F', 'comm,tid,time,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr.slice(-2000)}`);
  const attribution = createAttribution({ from, to, mainTid: pid });
  readPerfScript(script.stdout.split('\n'), attribution.add);
  const result = attribution.result();
  console.log(
    [
      `### ${what}, ${scenario.label}, ${args.connections} connections${args.tls ? ', upstream over TLS' : ''}`,
      '',
      `Without perf: ${Math.round(plainRun.rps).toLocaleString('en-US')} req/s; CPU per request by thread (/proc):`,
      '',
      threadMarkdown(threads),
      '',
      `Minor page faults: ${faultsPerRequest.toFixed(2)} per request.`,
      '',
      ...(syscalls ? [syscalls, ''] : []),
      ...(gc ? [gc, ''] : []),
      `Under perf at ${args.frequency} Hz with call chains: ${Math.round(run.rps).toLocaleString('en-US')} req/s. The profiler slows the server, so read the shares; µs are CPU per request under the profiler.`,
      '',
      attributionMarkdown(result, { frequency: args.frequency, requests: run.requests, top: args.top }),
      '',
    ].join('\n'),
  );
}

main()
  .catch((err: unknown) => {
    console.error(`bench:profile: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    process.exit();
  });
