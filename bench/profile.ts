/**
 * A native CPU profile of the gateway under load: `npm run bench:profile -- [--runtime bun|node]
 * [--scenario NAME] [--seconds 3] [--warmup 2] [--connections 64] [--frequency 999] [--top 20]`.
 * Needs perf (Debian: linux-perf) besides nginx and wrk. See bench/README.md, "Profile".
 *
 * The gateway runs under `perf record` with call chains, JavaScript frames named through Bun's
 * JITDump (converted to a perf map, bench/lib/jitdump.ts) or Node's --perf-basic-prof; the samples
 * of the measured run are summed per thread and, on the main thread, by the innermost JavaScript
 * function that led to them (bench/lib/perf-samples.ts). Bun's own --cpu-prof sees only
 * JavaScript and, under load, put a third of its samples on functions that did not run.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDrip } from './lib/drip.ts';
import { gatewayConfig } from './lib/gateway-config.ts';
import { readJitDump, writePerfMap } from './lib/jitdump.ts';
import { startNginx } from './lib/nginx.ts';
import { attributionMarkdown, createAttribution, readPerfScript } from './lib/perf-samples.ts';
import { listeningPid } from './lib/proc-stats.ts';
import { installCleanup, launch, onExit, pinSelf, stopAll, waitListening, which } from './lib/procs.ts';
import { SCENARIOS } from './lib/scenarios.ts';
import { runtimeCommand, type Runtime } from './lib/servers.ts';
import { runWrk } from './lib/wrk.ts';

const SERVER_CPU = 0;
const LOAD_CPU = 1;
const say = (line: string) => console.error(line);

interface ProfileArgs {
  runtime: Extract<Runtime, 'bun' | 'node'>;
  scenario: string;
  seconds: number;
  warmup: number;
  connections: number;
  frequency: number;
  top: number;
}

function readArgs(argv: string[]): ProfileArgs {
  const args: ProfileArgs = { runtime: 'bun', scenario: 'claude-anthropic-json', seconds: 3, warmup: 2, connections: 64, frequency: 999, top: 20 };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!;
    const value = argv[++i];
    if (value === undefined) throw new Error(`${name} needs a value`);
    const number = () => {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: a positive number, not "${value}"`);
      return n;
    };
    if (name === '--runtime') {
      if (value !== 'bun' && value !== 'node') throw new Error('--runtime: bun or node');
      args.runtime = value;
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
  return args;
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
  writeFileSync(configPath, JSON.stringify(gatewayConfig(upstream.port, 'memory')));
  const entry = args.runtime === 'bun' ? 'adapters/bun.ts' : 'adapters/node.ts';
  const [cmd, cmdArgs] = runtimeCommand(args.runtime, entry, ['--config', configPath]);
  // Node writes /tmp/perf-<pid>.map itself; Bun's JITDump is converted after the run.
  if (args.runtime === 'node') cmdArgs.unshift('--perf-basic-prof');
  const data = join(dir, 'perf.data');
  // perf on the load core, the gateway alone on its own, as in `npm run bench`.
  const recorded = launch(LOAD_CPU, perf, ['record', '-k', '1', '-F', String(args.frequency), '-g', '-o', data, '--', 'taskset', '-c', String(SERVER_CPU), cmd, ...cmdArgs], {
    env: { PORT: '0', HOST: '127.0.0.1', BUN_JSC_useJITDump: '1', BUN_JSC_jitDumpDirectory: dir },
    stdoutFile: join(dir, 'access.log'),
  });
  const port = await waitListening(recorded, `gateway under perf (${cmd})`);
  const pid = listeningPid(recorded.child.pid!, port);
  const url = `http://127.0.0.1:${port}${scenario.gatewayPath}`;
  say(`profile: ${args.runtime} gateway pid ${pid} on core ${SERVER_CPU}, ${scenario.name}, ${args.connections} connections, perf at ${args.frequency} Hz`);
  await runWrk(wrk, LOAD_CPU, url, scenario.name, args.connections, args.warmup);
  const from = monotonicSeconds();
  const run = await runWrk(wrk, LOAD_CPU, url, scenario.name, args.connections, args.seconds);
  const to = monotonicSeconds();
  if (run.requests === 0) throw new Error('no request completed under load');

  const exited = new Promise<void>((resolve) => recorded.child.once('close', () => resolve()));
  process.kill(pid, 'SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  if (args.runtime === 'bun') {
    const dump = readdirSync(dir).find((name) => /^jit-.*\.dump$/.test(name));
    if (!dump) throw new Error(`no JITDump in ${dir}: Bun ignored BUN_JSC_useJITDump`);
    mapFile = `/tmp/perf-${pid}.map`;
    writeFileSync(mapFile, writePerfMap(readJitDump(readFileSync(join(dir, dump)))));
  } else mapFile = `/tmp/perf-${pid}.map`;

  const script = spawnSync(perf, ['script', '-i', data, '-F', 'comm,tid,time,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr.slice(-2000)}`);
  const attribution = createAttribution({ from, to, mainTid: pid });
  readPerfScript(script.stdout.split('\n'), attribution.add);
  const result = attribution.result();
  console.log(
    [
      `### ${args.runtime}, ${scenario.label}: ${Math.round(run.rps).toLocaleString('en-US')} req/s under perf, ${run.requests.toLocaleString('en-US')} requests in ${args.seconds} s at ${args.connections} connections`,
      '',
      `perf at ${args.frequency} Hz with call chains slows the server (compare req/s with an unprofiled run); shares are what to read, µs are CPU per request under the profiler.`,
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
