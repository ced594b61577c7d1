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
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun.ts'], runtimeConfig(upstream.url), undefined, { SWITCHYARD_UPSTREAM_CLIENT: client });
    expect(gateway.stderr()).toContain(`upstream client: ${client}`);
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  runtimeSuite('bun', () => gateway.url, { upstream: () => upstream, records: true });
});
