import { afterAll, beforeAll, describe } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { runtimeConfig, runtimeSuite } from './suite.ts';

const deno = runtimeBin('deno');

describe.skipIf(!deno)('deno adapter', () => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await spawnGateway(deno!, ['run', '-A', 'test/runtime/fixtures/serve-deno.ts'], runtimeConfig(upstream.url));
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  runtimeSuite('deno', () => gateway.url, { upstream: () => upstream, records: true });
});
