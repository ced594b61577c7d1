import { afterAll, beforeAll } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, type RunningGateway } from '../helpers/gateway.ts';
import { runtimeConfig, runtimeSuite } from './suite.ts';

let upstream: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway(runtimeConfig(upstream.url));
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

runtimeSuite('node', () => gateway.url, { upstream: () => upstream });
