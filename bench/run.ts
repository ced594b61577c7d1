/**
 * Switchyard's benchmark: `node --import tsx bench/run.ts [--runtime node|bun|deno|all] ...`
 * (`npm run bench -- ...`). See bench/README.md for what it starts and what each number means.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAccounting, runtimeVersion } from './lib/accounting.ts';
import { parseArgs } from './lib/args.ts';
import { checkAnswer } from './lib/check.ts';
import { startDrip } from './lib/drip.ts';
import { gatewayConfig } from './lib/gateway-config.ts';
import { measureScenario } from './lib/measure.ts';
import { BENCH_CA, startNginx } from './lib/nginx.ts';
import { memory } from './lib/proc-stats.ts';
import { installCleanup, onExit, pinSelf, ROOT, stop, stopAll, which } from './lib/procs.ts';
import { runtimeMarkdown, soakMarkdown, thinMarkdown, type RuntimeResult, type SoakResult } from './lib/report.ts';
import { measurePeer, PEER_SCENARIOS, peerMarkdown, startPortkey, type PeerScenarioResult } from './lib/peer.ts';
import type { LoadRun } from './lib/rounds.ts';
import { pickScenarios, SCENARIOS } from './lib/scenarios.ts';
import { runtimeBin, startServer, type Runtime, type Server } from './lib/servers.ts';
import { soak } from './lib/soak.ts';
import { speedTracker } from './lib/speed-probe.ts';
import { THIN_RUNTIMES, THIN_SCENARIOS } from './lib/thin-gateway.ts';

const SERVER_CPU = 0;
const LOAD_CPU = 1;
const say = (line: string) => console.error(line);

function tools(): { nginx: string; wrk: string } {
  const nginx = which('nginx', ['/usr/sbin/nginx']);
  const wrk = which('wrk', ['/usr/bin/wrk']);
  const missing = [!nginx && 'nginx', !wrk && 'wrk', !which('taskset') && 'taskset (util-linux)'].filter(Boolean);
  if (missing.length) {
    console.error(`bench: missing ${missing.join(', ')}. On Debian/Ubuntu install them with:\n\n  apt-get install -y nginx wrk\n`);
    process.exit(1);
  }
  if (availableParallelism() < 2) {
    console.error('bench: needs at least 2 cores (server on core 0, wrk and nginx on core 1)');
    process.exit(1);
  }
  return { nginx: nginx!, wrk: wrk! };
}

const nginxVersion = (bin: string) => /nginx\/(\S+)/.exec(spawnSync(bin, ['-v'], { encoding: 'utf8' }).stderr)?.[1];
const wrkVersion = (bin: string) => /wrk (\S+)/.exec(spawnSync(bin, ['-v'], { encoding: 'utf8' }).stdout)?.[1];

/** nginx as the servers under test call it: its plain port, or with --tls its TLS port. */
interface UpstreamSide {
  port: number;
  scheme: 'http' | 'https';
}

async function startPair(runtime: Runtime, dir: string, upstream: UpstreamSide, storage: 'memory' | 'sqlite', withBare: boolean, withThin: boolean): Promise<{ bare?: Server; gateway: Server; thin?: Server; accessLog: string }> {
  if (!runtimeBin(runtime)) throw new Error(`${runtime} is not installed (looked in node_modules and PATH; run npm install)`);
  const configPath = join(dir, `switchyard-${runtime}.json`);
  const store = storage === 'memory' ? 'memory' : { sqlite: join(dir, `usage-${runtime}.db`) };
  writeFileSync(configPath, JSON.stringify(gatewayConfig(upstream.port, store, upstream.scheme), null, 2));
  const accessLog = join(dir, `access-${runtime}.log`);
  const trust: Record<string, string> = upstream.scheme === 'https' ? { NODE_EXTRA_CA_CERTS: BENCH_CA } : {};
  const bare = !withBare ? undefined : await startServer({
    name: `bare ${runtime} proxy`, runtime, entry: `bench/bare-proxy-${runtime}.ts`, cpu: SERVER_CPU,
    env: { UPSTREAM: `${upstream.scheme}://127.0.0.1:${upstream.port}`, ...trust }, stderrFile: join(dir, `bare-${runtime}.err.log`),
  });
  const gateway = await startServer({
    name: 'gateway', runtime, entry: `adapters/${runtime}.ts`, args: ['--config', configPath], cpu: SERVER_CPU,
    env: trust, stdoutFile: accessLog, stderrFile: join(dir, `gateway-${runtime}.err.log`),
  });
  const thin = !withThin ? undefined : await startServer({
    name: `thin ${runtime} gateway`, runtime, entry: `bench/thin-gateway-${runtime}.ts`, args: ['--config', configPath], cpu: SERVER_CPU,
    env: trust, stdoutFile: join(dir, `access-thin-${runtime}.log`), stderrFile: join(dir, `thin-${runtime}.err.log`),
  });
  say(`${runtime}: ${bare ? `bare proxy pid ${bare.pid} port ${bare.port}; ` : ''}gateway pid ${gateway.pid} port ${gateway.port}; ${thin ? `thin gateway pid ${thin.pid} port ${thin.port}; ` : ''}access log ${accessLog}`);
  return { bare, gateway, thin, accessLog };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const { nginx, wrk } = tools();
  installCleanup();
  pinSelf(LOAD_CPU);
  const scenarios = pickScenarios(args.scenarios, args.large);
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
  // Traversable (not listable) for nginx's worker, which runs as nobody when started as root.
  chmodSync(dir, 0o711);
  // Kept after a failure: the servers' stderr logs and the access log say what went wrong.
  onExit(() => {
    if (!failed && !args.keepTemp) rmSync(dir, { recursive: true, force: true });
    else console.error(`bench: configs and logs kept in ${dir}`);
  });
  const started = new Date();
  const drip = await startDrip(args.dripMs);
  const upstream = await startNginx(nginx, join(dir, 'nginx'), LOAD_CPU, drip.port);
  say(`bench: nginx on 127.0.0.1:${upstream.port} and, over TLS, :${upstream.tlsPort} (core ${LOAD_CPU}), temp dir ${dir}${args.tls ? '; servers call it over TLS' : ''}`);
  const runtimes: RuntimeResult[] = [];
  const soaks: SoakResult[] = [];
  const peers: unknown[] = [];
  const markdown: string[] = [];
  // One tracker for the whole command, so every runtime's runs are judged against the same fastest probe.
  const speed = speedTracker(SERVER_CPU);
  try {
    for (const runtime of args.runtimes) {
      const withThin = args.thin && !args.soak && THIN_RUNTIMES.includes(runtime);
      const side: UpstreamSide = args.tls ? { port: upstream.tlsPort, scheme: 'https' } : { port: upstream.port, scheme: 'http' };
      const { bare, gateway, thin, accessLog } = await startPair(runtime, dir, side, args.storage, !args.soak, withThin);
      try {
        if (args.soak) {
          const scenario = (args.scenarios?.length ? scenarios[0] : SCENARIOS.find((s) => s.name === 'claude-anthropic-json'))!;
          await checkAnswer(`http://127.0.0.1:${gateway.port}`, scenario.gatewayPath, scenario, scenario.clientFormat);
          say(`${runtime}: soak, ${args.soak.toLocaleString('en-US')} requests of ${scenario.name}`);
          const result = await soak({ wrk, loadCpu: LOAD_CPU, runtime, scenario: scenario.name, storage: args.storage, url: `http://127.0.0.1:${gateway.port}${scenario.gatewayPath}`, gateway, target: args.soak, say });
          soaks.push(result);
          markdown.push(soakMarkdown(result));
          continue;
        }
        if (!bare) throw new Error('no bare proxy');
        const results: RuntimeResult['scenarios'] = {};
        for (const scenario of scenarios) {
          const measured = await measureScenario(
            { wrk, serverCpu: SERVER_CPU, loadCpu: LOAD_CPU, seconds: args.seconds, warmupSeconds: args.warmupSeconds, rounds: args.rounds, redo: args.redo, connections: args.connections, ttfbCount: args.ttfbCount, say, runtime, speed },
            scenario, upstream.port, bare, gateway, THIN_SCENARIOS.includes(scenario.name) ? thin : undefined,
          );
          measured.memoryAfter = { bare: memory(bare.pid), gateway: memory(gateway.pid) };
          results[scenario.name] = measured;
        }
        const result: RuntimeResult = {
          runtime,
          version: runtimeVersion(gateway.stderr()),
          scenarios: results,
          memory: { bare: memory(bare.pid), gateway: memory(gateway.pid), ...(thin && { thin: memory(thin.pid) }) },
          accounting: await readAccounting(gateway.port, accessLog),
        };
        runtimes.push(result);
        markdown.push(runtimeMarkdown(result, scenarios, { seconds: args.seconds, rounds: args.rounds, redo: args.redo, connections: args.connections, dripMs: args.dripMs, storage: args.storage, tls: args.tls }));
        console.log(`\n${markdown.at(-1)}\n`);
        if (thin) {
          markdown.push(thinMarkdown(result, scenarios));
          console.log(`\n${markdown.at(-1)}\n`);
        }
        if (args.peer === 'portkey' && runtime === 'node') {
          const peerScenarios = scenarios.filter((s) => PEER_SCENARIOS.includes(s.name));
          const peer = await startPortkey(SERVER_CPU, join(dir, 'portkey.err.log'));
          say(`node: peer ${peer.name} pid ${peer.pid} port ${peer.port}`);
          try {
            const compared: Record<string, { peer: PeerScenarioResult; gateway: LoadRun[]; direct: LoadRun }> = {};
            for (const scenario of peerScenarios) {
              const measured = await measurePeer(
                { wrk, serverCpu: SERVER_CPU, loadCpu: LOAD_CPU, seconds: args.seconds, warmupSeconds: args.warmupSeconds, rounds: args.rounds, redo: args.redo, connections: args.connections, ttfbCount: 0, say, speed },
                scenario, upstream.port, peer,
              );
              compared[scenario.name] = { peer: measured, gateway: results[scenario.name]!.gateway.runs, direct: results[scenario.name]!.direct.runs[0]! };
            }
            const peak = { gateway: memory(gateway.pid).peak, peer: memory(peer.pid).peak };
            peers.push({ peer: peer.name, scenarios: compared, peak });
            markdown.push(peerMarkdown(peer.name, compared, Object.fromEntries(scenarios.map((s) => [s.name, s.label])), peak));
            console.log(`\n${markdown.at(-1)}\n`);
          } finally {
            await peer.stop();
          }
        }
      } finally {
        await Promise.all([bare?.stop(), gateway.stop(), thin?.stop()]);
      }
    }
  } finally {
    await stop(upstream.server.child);
    drip.server.close();
    drip.server.closeAllConnections();
    await stopAll();
  }
  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${started.toISOString().replace(/[:.]/g, '-')}-${args.soak ? 'soak-' : ''}${args.runtimes.join('-')}.json`);
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, kernel: release(), nginx: nginxVersion(nginx), wrk: wrkVersion(wrk) };
  writeFileSync(file, JSON.stringify({ started: started.toISOString(), args, machine, runtimes, soaks, peers, markdown: markdown.join('\n\n') }, null, 2));
  if (args.soak) console.log(`\n${markdown.join('\n\n')}\n`);
  say(`bench: raw results in ${file}`);
}

let failed = false;

main().catch(async (err: unknown) => {
  failed = true;
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  await stopAll();
  process.exit(1);
});
