import { afterAll, beforeAll, describe } from 'vitest';
import { createUndiciFetch } from '../../adapters/node-upstream.ts';
import { createNodeSocketFetch } from '../../adapters/node-sockets.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, type RunningGateway } from '../helpers/gateway.ts';
import { openRuntimeStorage, runtimeConfig, runtimeSuite } from './suite.ts';

// The adapter's own upstream client, and undici's pool (SWITCHYARD_UPSTREAM_CLIENT=undici).
const clients = { sockets: createNodeSocketFetch, undici: createUndiciFetch };

describe.each(['sockets', 'undici'] as const)('node adapter (upstream client: %s)', (client) => {
  let upstream: FakeUpstream;
  let gateway: RunningGateway;
  let storage: Awaited<ReturnType<typeof openRuntimeStorage>>;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    const config = runtimeConfig(upstream.url);
    storage = await openRuntimeStorage(config);
    gateway = await startTestGateway(config, { fetch: clients[client](), ...storage.options });
  });

  afterAll(async () => {
    await gateway?.close();
    await storage?.close();
    await upstream?.close();
  });

  runtimeSuite('node', () => gateway.url, { upstream: () => upstream, records: true, framesWholeStreams: true });
});
