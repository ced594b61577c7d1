import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkAnswer } from './check.ts';
import { load, type MeasureOptions } from './measure.ts';
import type { LoadRun } from './rounds.ts';
import { listeningPid } from './proc-stats.ts';
import { freePort, launch, ROOT, stop, waitPort } from './procs.ts';
import type { Scenario } from './scenarios.ts';
import type { Server } from './servers.ts';

/** The scenarios the peer is measured on: the passthrough every gateway offers. */
export const PEER_SCENARIOS = ['claude-anthropic-json', 'claude-anthropic-sse'];

const PORTKEY_DIR = join(ROOT, 'node_modules', '@portkey-ai', 'gateway');

export interface PeerScenarioResult {
  runs?: LoadRun[];
  /** Why the peer could not be measured on this scenario (its answer failed the check). */
  error?: string;
}

export function portkeyVersion(): string | undefined {
  const file = join(PORTKEY_DIR, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
}

/**
 * Portkey's open-source gateway (a devDependency, pinned) started as its README says
 * (`node build/start-server.js --port=N --headless`), on the server core like the others. It
 * takes no port 0, so a free one is picked first.
 */
export async function startPortkey(cpu: number, stderrFile: string): Promise<Server> {
  if (!portkeyVersion()) throw new Error('--peer portkey: @portkey-ai/gateway is not installed (npm install)');
  const port = await freePort();
  const launched = launch(cpu, process.execPath, [join(PORTKEY_DIR, 'build', 'start-server.js'), `--port=${port}`, '--headless'], { stderrFile });
  let ended: string | undefined;
  launched.child.once('exit', (code, signal) => (ended = signal ? `signal ${signal}` : `exit code ${code}`));
  await waitPort(port, () => ended !== undefined, () => `portkey ended (${ended}): ${launched.stderr().slice(-2000)}`, 60_000);
  return {
    name: `portkey ${portkeyVersion()}`,
    port,
    pid: listeningPid(launched.child.pid!, port),
    stderr: launched.stderr,
    assertAlive(during) {
      if (ended !== undefined) throw new Error(`portkey ended (${ended}) during ${during}`);
    },
    stop: () => stop(launched.child),
  };
}

/**
 * The scenario through the peer, with the same upstream answer (its custom host is the nginx
 * path the gateway's provider uses): checked once, then warmed up and loaded like the gateway.
 */
export async function measurePeer(opts: MeasureOptions, scenario: Scenario, nginxPort: number, peer: Server): Promise<PeerScenarioResult> {
  const host = readPeerHost(scenario, `http://127.0.0.1:${nginxPort}`);
  const url = `http://127.0.0.1:${peer.port}/v1/messages`;
  const error = await checkPeer(peer, scenario, `http://127.0.0.1:${nginxPort}`);
  if (error) {
    opts.say(`  ${scenario.name}: ${peer.name}: not measured: ${error}`);
    return { error };
  }
  const custom = { script: 'peer-portkey', env: { BENCH_BODY: scenario.body!, BENCH_PORTKEY_HOST: host } };
  opts.say(`  ${scenario.name}: ${peer.name}`);
  if (opts.warmupSeconds > 0) await load({ ...opts, seconds: opts.warmupSeconds, say: () => {} }, url, scenario, Math.max(...opts.connections), undefined, custom);
  const runs: LoadRun[] = [];
  for (const c of opts.connections) runs.push(await load(opts, url, scenario, c, peer, custom));
  return { runs };
}

/** Portkey's custom host for a scenario: the upstream path the gateway's provider uses, less `/messages`. */
function readPeerHost(scenario: Scenario, upstreamOrigin: string): string {
  return `${upstreamOrigin}${scenario.upstreamPath.replace(/\/messages$/, '')}`;
}

/**
 * The scenario's request through the peer, its answer checked as every target's is: undefined
 * when it passes, else why not in one line ("status 500 <body>").
 */
export async function checkPeer(peer: Pick<Server, 'port'>, scenario: Scenario, upstreamOrigin: string): Promise<string | undefined> {
  const headers = { 'x-api-key': 'sk-ant-bench', 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': readPeerHost(scenario, upstreamOrigin) };
  try {
    await checkAnswer(`http://127.0.0.1:${peer.port}`, '/v1/messages', scenario, scenario.clientFormat, headers);
    return undefined;
  } catch (err) {
    // "<scenario>: <url>: status 500\n<body>" → "status 500 <body>"
    return (err instanceof Error ? err.message : String(err)).replace(/^[^\n]*?\/v1\/messages: /, '').split('\n').slice(0, 2).join(' ').slice(0, 200);
  }
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)} ms`;

/**
 * Switchyard against the peer on each scenario of the same run: throughput at the highest
 * connection count, latency added over calling nginx directly at the lowest, CPU per request.
 */
export function peerMarkdown(peerName: string, results: Record<string, { peer: PeerScenarioResult; gateway: LoadRun[]; direct: LoadRun }>, labels: Record<string, string>, peak: { gateway: number; peer: number }): string {
  const rows = Object.entries(results).map(([name, { peer, gateway, direct }]) => {
    const label = labels[name] ?? name;
    if (!peer.runs) return `| ${label} | — | — | — | — | — | ${peer.error ?? 'not measured'} |`;
    const top = (runs: LoadRun[]) => runs.reduce((a, b) => (b.connections > a.connections ? b : a));
    const bottom = (runs: LoadRun[]) => runs.reduce((a, b) => (b.connections < a.connections ? b : a));
    const [g, p] = [top(gateway), top(peer.runs)];
    const [g8, p8] = [bottom(gateway), bottom(peer.runs)];
    return `| ${label} | ${int(g.rps)} / ${int(p.rps)} | ${(g.rps / p.rps).toFixed(1)}× | ${ms(g8.p50_ms - direct.p50_ms)} / ${ms(p8.p50_ms - direct.p50_ms)} | ${ms(g8.p99_ms - direct.p99_ms)} / ${ms(p8.p99_ms - direct.p99_ms)} | ${int(g.cpu_us_per_req ?? NaN)} / ${int(p.cpu_us_per_req ?? NaN)} | |`;
  });
  return [
    `#### Switchyard vs ${peerName} (peer gateway), same run, same upstream answers`,
    '',
    '| scenario | req/s @64 Switchyard / peer | Switchyard ÷ peer | added p50 @8 Switchyard / peer | added p99 @8 Switchyard / peer | CPU µs/req Switchyard / peer | note |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows,
    '',
    `Peak RSS over the whole run: Switchyard ${(peak.gateway / 1048576).toFixed(1)} MiB, ${peerName} ${(peak.peer / 1048576).toFixed(1)} MiB.`,
  ].join('\n');
}
