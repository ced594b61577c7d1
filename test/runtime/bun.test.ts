import { afterAll, beforeAll, describe } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { runtimeConfig, runtimeSuite } from './suite.ts';

const bun = runtimeBin('bun');

describe.skipIf(!bun)('bun adapter', () => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun.ts'], runtimeConfig(upstream.url));
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  runtimeSuite('bun', () => gateway.url, { upstream: () => upstream, records: true });
});
