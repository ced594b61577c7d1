import { readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_KEY, gatewayConfig } from '../../bench/lib/gateway-config.ts';
import { checkPeer, PEER_SCENARIOS, startPortkey } from '../../bench/lib/peer.ts';
import { pickScenarios } from '../../bench/lib/scenarios.ts';
import type { Server } from '../../bench/lib/servers.ts';
import { listenLocal } from '../helpers/fake-server.ts';
import { ROOT, runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';

/**
 * The benchmark's baselines stay true to what they claim: the bare proxies relay the upstream's
 * answer byte for byte, and the thin gateways check the key, send the upstream model with the
 * gateway's credentials, and relay the answer (JSON and SSE), on every runtime they exist for.
 * The peer gateway (Portkey) answers each of its cases (the two passthroughs and its translated
 * stream), so the comparison has numbers, not the 500 its stream read in every run before the
 * forty-seventh round (bench/README.md, "The peer gateway").
 * The upstream plays nginx's part: the canned files of bench/upstream under each provider's path.
 */
const ANSWERS: Record<string, string> = {
  '/anthropic-json/v1/messages': 'anthropic-message.json',
  '/anthropic-sse/v1/messages': 'anthropic-stream.sse',
};
const file = (name: string) => readFileSync(join(ROOT, 'bench', 'upstream', name), 'utf8');
const body = (name: string) => readFileSync(join(ROOT, 'bench', 'bodies', name), 'utf8');

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let upstream: { url: string; close(): Promise<void> };
const seen: Seen[] = [];

beforeAll(async () => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const name = ANSWERS[req.url ?? ''];
      if (!name) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': name.endsWith('.sse') ? 'text/event-stream' : 'application/json' });
      // The stream in two writes, as a socket commonly delivers it.
      const text = file(name);
      res.write(text.slice(0, text.length >> 1));
      setTimeout(() => res.end(text.slice(text.length >> 1)), 5);
    });
  });
  upstream = await listenLocal(server);
});

afterAll(async () => {
  await upstream?.close();
});

const bun = runtimeBin('bun');
const deno = runtimeBin('deno');
const node = (entry: string): [string, string[]] => [process.execPath, ['--import', 'tsx', entry]];
/** Deno has a bare proxy and no thin gateway. */
const RUNTIMES: Array<[name: string, available: boolean, command: (entry: string) => [string, string[]], thin: boolean]> = [
  ['node', true, node, true],
  ['bun', bun !== undefined, (entry) => [bun!, ['run', entry]], true],
  ['deno', deno !== undefined, (entry) => [deno!, ['run', '-A', entry]], false],
];
const config = () => {
  const { port } = new URL(upstream.url);
  return gatewayConfig(Number(port), 'memory');
};

for (const [runtime, available, command, hasThin] of RUNTIMES) {
  describe.skipIf(!available)(`the benchmark's baselines on ${runtime}`, () => {
    let bare: SpawnedGateway;
    let thin: SpawnedGateway | undefined;

    beforeAll(async () => {
      [bare, thin] = await Promise.all([
        spawnGateway(...command(`bench/bare-proxy-${runtime}.ts`), config(), 45_000, { UPSTREAM: upstream.url }),
        hasThin ? spawnGateway(...command(`bench/thin-gateway-${runtime}.ts`), config()) : undefined,
      ]);
    }, 60_000);

    afterAll(async () => {
      await Promise.all([bare?.close(), thin?.close()]);
    });

    it('bare proxy: relays the JSON and the SSE answer as the upstream sent them', async () => {
      for (const [path, name] of Object.entries(ANSWERS)) {
        const res = await fetch(bare.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('claude-anthropic-json.json') });
        expect(res.status).toBe(200);
        expect(await res.text()).toBe(file(name));
      }
    });

    it.skipIf(!hasThin)('thin gateway: sends the upstream model with the gateway key and relays the answer', async () => {
      for (const [request, answer, upstreamPath] of [
        ['claude-anthropic-json.json', 'anthropic-message.json', '/anthropic-json/v1/messages'],
        ['claude-anthropic-sse.json', 'anthropic-stream.sse', '/anthropic-sse/v1/messages'],
      ] as const) {
        const before = seen.length;
        const res = await fetch(`${thin!.url}/api/anthropic/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': BENCH_KEY, 'anthropic-version': '2023-06-01' },
          body: body(request),
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('request-id')).toMatch(/^req_/);
        expect(await res.text()).toBe(file(answer));
        const sent = seen.slice(before).find((s) => s.path === upstreamPath)!;
        expect(sent.headers['x-api-key']).toBe('sk-ant-bench');
        const client = JSON.parse(body(request)) as Record<string, unknown>;
        expect(JSON.parse(sent.body)).toEqual({ ...client, model: 'claude-sonnet-4-5-20250929' });
      }
    });

    it.skipIf(!hasThin)('thin gateway: refuses an unknown key and a body that is not JSON', async () => {
      const url = `${thin!.url}/api/anthropic/v1/messages`;
      const wrongKey = await fetch(url, { method: 'POST', headers: { 'x-api-key': 'nope' }, body: body('claude-anthropic-json.json') });
      expect(wrongKey.status).toBe(401);
      const notJson = await fetch(url, { method: 'POST', headers: { 'x-api-key': BENCH_KEY }, body: '{"model":' });
      expect(notJson.status).toBe(400);
    });
  });
}

describe("the benchmark's peer gateway (Portkey)", () => {
  let portkey: Server;
  const stderrFile = join(tmpdir(), `switchyard-portkey-${process.pid}.err`);

  beforeAll(async () => {
    portkey = await startPortkey(0, stderrFile);
  }, 90_000);

  afterAll(async () => {
    await portkey?.stop();
    rmSync(stderrFile, { force: true });
  });

  it('answers the JSON and the streamed passthrough and its translated stream from the same upstream answers, checked as the bench checks them', async () => {
    expect(PEER_SCENARIOS).toEqual(['claude-anthropic-json', 'claude-anthropic-sse', 'gemini-anthropic-sse']);
    for (const scenario of pickScenarios(PEER_SCENARIOS)) {
      const before = seen.length;
      expect(await checkPeer(portkey, scenario, upstream.url), scenario.name).toBeUndefined();
      expect(seen.slice(before).map((s) => s.path)).toContain(scenario.upstreamPath);
    }
  }, 30_000);
});
