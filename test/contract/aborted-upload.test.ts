import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

/** A client that leaves half-way through its upload is not a gateway fault (Node adapter). */
let upstream: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({ providers: { claude: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant' } }, models: [{ id: 'c', routes: [{ provider: 'claude', model: 'c-up' }] }] }),
  );
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

it('is logged as a 499, not as an internal error, and nothing goes upstream', async () => {
  const { port } = new URL(gateway.url);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`POST /api/anthropic/v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"model":"acme.c",`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  await expect.poll(() => gateway.logs.length).toBe(1);
  expect(gateway.logs[0]).toMatchObject({ status: 499 });
  expect(gateway.errors).toEqual([]);
  expect(upstream.requests).toHaveLength(0);
});
