import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { runtimeConfig, runtimeSuite } from './suite.ts';

const deno = runtimeBin('deno');

// The sockets client (the Node adapter's, on Deno's node:net), and Deno's fetch.
describe.skipIf(!deno).each(['sockets', 'fetch'])('deno adapter (upstream client: %s)', (client) => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await spawnGateway(deno!, ['run', '-A', 'test/runtime/fixtures/serve-deno.ts'], runtimeConfig(upstream.url), undefined, { SWITCHYARD_UPSTREAM_CLIENT: client });
    expect(gateway.stderr()).toContain(`upstream client: ${client}`);
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  // Deno's fetch hands over a web stream, which cannot say it has ended without a read: such an
  // answer is relayed as a stream (chunked), whole or not.
  runtimeSuite('deno', () => gateway.url, { upstream: () => upstream, records: true, framesWholeStreams: client === 'sockets' });
});
