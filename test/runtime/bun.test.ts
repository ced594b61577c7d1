import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { runtimeConfig, runtimeSuite } from './suite.ts';

const bun = runtimeBin('bun');

// The adapter's own upstream client, and Bun's fetch (what it falls back to behind an HTTP proxy).
describe.skipIf(!bun).each(['sockets', 'fetch'])('bun adapter (upstream client: %s)', (client) => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    // Bun's fetch lets 256 requests at once through unless told otherwise at start, as the
    // adapter's start-up warning says (the suite runs 300 streams at once).
    const lift: Record<string, string> = client === 'fetch' ? { BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' } : {};
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun.ts'], runtimeConfig(upstream.url), undefined, { SWITCHYARD_UPSTREAM_CLIENT: client, ...lift });
    expect(gateway.stderr()).toContain(`upstream client: ${client}`);
    expect(gateway.stderr()).not.toContain('BUN_CONFIG_MAX_HTTP_REQUESTS');
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  runtimeSuite('bun', () => gateway.url, { upstream: () => upstream, records: true, framesWholeStreams: true });
});
