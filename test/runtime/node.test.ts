import { afterAll, beforeAll } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, type RunningGateway } from '../helpers/gateway.ts';
import { openRuntimeStorage, runtimeConfig, runtimeSuite } from './suite.ts';

let upstream: FakeUpstream;
let gateway: RunningGateway;
let storage: Awaited<ReturnType<typeof openRuntimeStorage>>;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const config = runtimeConfig(upstream.url);
  storage = await openRuntimeStorage(config);
  gateway = await startTestGateway(config, storage.options);
});

afterAll(async () => {
  await gateway?.close();
  await storage?.close();
  await upstream?.close();
});

runtimeSuite('node', () => gateway.url, { upstream: () => upstream, records: true });
