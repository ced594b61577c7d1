import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkAnswer } from './check.ts';
import { load, type MeasureOptions } from './measure.ts';
import type { LoadRun } from './rounds.ts';
import { listeningPid } from './proc-stats.ts';
import { freePort, launch, ROOT, stop, waitPort } from './procs.ts';
import type { Format, Scenario } from './scenarios.ts';
import type { Server } from './servers.ts';

/** A request the peer is measured on, set beside a scenario of Switchyard's in the same run. */
export interface PeerCase {
  /** Switchyard's scenario: its runs, its direct calls to nginx, and the upstream answer both get. */
  scenario: string;
  /** The peer's own front door, request body (under bench/bodies/) and answer, where they differ from the scenario's. */
  path: string;
  body?: string;
  format: Format;
  /** What the wrk script sends the key as: Claude-style (`x-api-key`) or OpenAI-style (Bearer). */
  family: 'anthropic' | 'openai';
  /** Said beside the row, where the two requests differ. */
  note?: string;
}

/**
 * What the peer is measured on: the passthrough every gateway offers, JSON and SSE, and a
 * translated stream to the same Anthropic answer. Portkey translates only from its OpenAI-style
 * front door, and Switchyard has none for chat (its OpenAI family is the model list), so the
 * translated row sets Portkey's OpenAI → Anthropic stream beside Switchyard's Gemini → Anthropic
 * one: the same conversation, the same upstream answer, each gateway's own client family.
 */
export const PEER_CASES: PeerCase[] = [
  { scenario: 'claude-anthropic-json', path: '/v1/messages', format: 'anthropic-json', family: 'anthropic' },
  { scenario: 'claude-anthropic-sse', path: '/v1/messages', format: 'anthropic-sse', family: 'anthropic' },
  {
    scenario: 'gemini-anthropic-sse', path: '/v1/chat/completions', body: 'peer-openai-chat-sse.json', format: 'openai-sse', family: 'openai',
    note: 'the peer from an OpenAI-style client (its translating front door), Switchyard from a Gemini-style one',
  },
];

export const PEER_SCENARIOS = PEER_CASES.map((c) => c.scenario);

function peerCaseOf(scenario: Scenario): PeerCase {
  const found = PEER_CASES.find((c) => c.scenario === scenario.name);
  if (!found) throw new Error(`${scenario.name}: not a scenario the peer is measured on`);
  return found;
}

/**
 * The scenario as the peer is asked it: its body and answer format, with the scenario's upstream.
 * The path only picks the family's headers (bench/lib/request.ts), as the wrk script does.
 */
function peerScenario(scenario: Scenario, peerCase: PeerCase): Scenario {
  return { ...scenario, gatewayPath: `/api/${peerCase.family}${peerCase.path}`, clientFormat: peerCase.format, body: peerCase.body ?? scenario.body, bodyModel: undefined };
}

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
  const peerCase = peerCaseOf(scenario);
  const host = readPeerHost(scenario, `http://127.0.0.1:${nginxPort}`);
  const url = `http://127.0.0.1:${peer.port}${peerCase.path}`;
  const error = await checkPeer(peer, scenario, `http://127.0.0.1:${nginxPort}`);
  if (error) {
    opts.say(`  ${scenario.name}: ${peer.name}: not measured: ${error}`);
    return { error };
  }
  const custom = { script: 'peer-portkey', env: { BENCH_BODY: peerCase.body ?? scenario.body!, BENCH_PORTKEY_HOST: host, BENCH_PEER_FAMILY: peerCase.family } };
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
  const peerCase = peerCaseOf(scenario);
  // The key as the wrk script sends it (peer-portkey.lua); the peer passes it on to nginx, which takes any.
  const key: Record<string, string> = peerCase.family === 'anthropic' ? { 'x-api-key': 'sk-ant-bench' } : { authorization: 'Bearer sk-ant-bench' };
  const headers = { ...key, 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': readPeerHost(scenario, upstreamOrigin) };
  const url = `http://127.0.0.1:${peer.port}${peerCase.path}`;
  try {
    await checkAnswer(`http://127.0.0.1:${peer.port}`, peerCase.path, peerScenario(scenario, peerCase), peerCase.format, headers);
    return undefined;
  } catch (err) {
    // "<scenario>: <url>: status 500\n<body>" → "status 500 <body>"
    const message = err instanceof Error ? err.message : String(err);
    const at = message.indexOf(`${url}: `);
    return message.slice(at >= 0 ? at + url.length + 2 : 0).split('\n').slice(0, 2).join(' ').slice(0, 200);
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
    const note = PEER_CASES.find((c) => c.scenario === name)?.note ?? '';
    if (!peer.runs) return `| ${label} | — | — | — | — | — | ${peer.error ?? 'not measured'} |`;
    const top = (runs: LoadRun[]) => runs.reduce((a, b) => (b.connections > a.connections ? b : a));
    const bottom = (runs: LoadRun[]) => runs.reduce((a, b) => (b.connections < a.connections ? b : a));
    const [g, p] = [top(gateway), top(peer.runs)];
    const [g8, p8] = [bottom(gateway), bottom(peer.runs)];
    return `| ${label} | ${int(g.rps)} / ${int(p.rps)} | ${(g.rps / p.rps).toFixed(1)}× | ${ms(g8.p50_ms - direct.p50_ms)} / ${ms(p8.p50_ms - direct.p50_ms)} | ${ms(g8.p99_ms - direct.p99_ms)} / ${ms(p8.p99_ms - direct.p99_ms)} | ${int(g.cpu_us_per_req ?? NaN)} / ${int(p.cpu_us_per_req ?? NaN)} | ${note} |`;
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
