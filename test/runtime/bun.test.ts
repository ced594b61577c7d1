import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { TEST_KEY } from '../helpers/gateway.ts';
import { runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { runtimeConfig, runtimeSuite } from './suite.ts';

const bun = runtimeBin('bun');

/**
 * Each start the runtime suite runs under: the adapter's own upstream client; Bun's fetch (what it
 * falls back to behind an HTTP proxy), which lets 256 requests at once through unless told
 * otherwise at start, as the adapter's start-up warning says (the suite runs 300 streams at once);
 * and the README's smaller Bun gateway (Memory), JavaScriptCore's heap sized for 256 MiB of RAM and
 * no FTL tier, options Bun reads only at start and refuses when it does not know one, so they are
 * checked with the Bun this project pins.
 */
const STARTS: Array<{ name: string; client: string; env: Record<string, string> }> = [
  { name: 'upstream client: sockets', client: 'sockets', env: {} },
  { name: 'upstream client: fetch', client: 'fetch', env: { BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' } },
  { name: 'upstream client: sockets, small-memory options', client: 'sockets', env: { BUN_JSC_forceRAMSize: '268435456', BUN_JSC_useFTLJIT: '0' } },
];

describe.skipIf(!bun).each(STARTS)('bun adapter ($name)', ({ client, env }) => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun.ts'], runtimeConfig(upstream.url), undefined, { SWITCHYARD_UPSTREAM_CLIENT: client, ...env });
    expect(gateway.stderr()).toContain(`upstream client: ${client}`);
    expect(gateway.stderr()).not.toContain('BUN_CONFIG_MAX_HTTP_REQUESTS');
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  runtimeSuite('bun', () => gateway.url, { upstream: () => upstream, records: true, framesWholeStreams: true });
});

// The Bun adapter writes its access-log lines with JSON.stringify (writeAccessLogLineNative): one
// line per request on stdout, each exactly the JSON of its entry.
describe.skipIf(!bun)('bun adapter access log', () => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun.ts'], runtimeConfig(upstream.url), undefined, {}, { stdout: true });
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('writes one JSON line per request, members in the gateway order, undefined ones left out', async () => {
    const listed = await fetch(`${gateway.url}/api/openai/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(listed.status).toBe(200);
    const refused = await fetch(`${gateway.url}/api/openai/v1/models`, { headers: { authorization: 'Bearer sk-not-a-key' } });
    expect(refused.status).toBe(401);
    await Promise.all([listed.arrayBuffer(), refused.arrayBuffer()]);
    await expect.poll(() => gateway.stdout().split('\n').filter(Boolean).length, { timeout: 5000 }).toBe(2);
    const lines = gateway.stdout().split('\n').filter(Boolean);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    lines.forEach((line, i) => expect(JSON.stringify(entries[i])).toBe(line));
    expect(Object.keys(entries[0]!)).toEqual(['time', 'id', 'method', 'path', 'status', 'ms', 'key']);
    expect(entries[0]).toMatchObject({ method: 'GET', path: '/api/openai/v1/models', status: 200, key: 'test' });
    expect(Object.keys(entries[1]!)).toEqual(['time', 'id', 'method', 'path', 'status', 'ms', 'error']);
    expect(entries[1]).toMatchObject({ status: 401 });
    expect(entries[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
