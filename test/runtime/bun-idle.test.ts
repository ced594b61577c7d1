import { request as httpRequest, Agent } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { TEST_KEY } from '../helpers/gateway.ts';
import { expectSlowAnswers, startSlowUpstream } from './long-wait.ts';
import { runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { runtimeConfig } from './suite.ts';

const bun = runtimeBin('bun');

/**
 * Bun has two idle limits that count while a request waits on its upstream: Bun.serve's (255 s
 * at most) and, when the upstream client is Bun's fetch, the fetch's (300 s). Both would cut a
 * model that takes longer than that to answer, though the provider's `timeoutMs` (600 s by
 * default) allows it. Here both are one second, and the upstream takes ten: the answers must
 * still arrive, and an idle keep-alive connection must still be closed once its answer is
 * written. Run with each upstream client the adapter may pick: its own sockets and Bun's fetch.
 */
const WAIT_MS = 10_000;

describe.skipIf(!bun).each(['sockets', 'fetch'])('bun adapter (upstream client: %s): no idle limit while a request is in flight', { concurrent: true }, (client) => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startSlowUpstream(WAIT_MS);
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun-short-idle.ts'], runtimeConfig(upstream.url), 45_000, {
      BUN_CONFIG_HTTP_IDLE_TIMEOUT: '1',
      SWITCHYARD_UPSTREAM_CLIENT: client,
    });
    expect(gateway.stderr()).toContain(`upstream client: ${client}`);
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('a JSON answer whose headers take longer than both idle limits arrives', () => expectSlowAnswers(gateway.url, 'json'), 30_000);

  it('a stream that sits quiet longer than both idle limits is relayed whole', () => expectSlowAnswers(gateway.url, 'stream'), 30_000);

  it('a keep-alive connection idle after its answer is closed by the idle limit again', async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      const socket = await new Promise<Socket>((resolve, reject) => {
        const req = httpRequest(`${gateway.url}/api/anthropic/v1/models`, { agent, headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' } }, (res) => {
          expect(res.statusCode).toBe(200);
          res.resume();
          res.once('end', () => resolve(req.socket!));
        });
        req.once('error', reject);
        req.end();
      });
      const started = performance.now();
      const closed = await Promise.race([new Promise<boolean>((resolve) => socket.once('close', () => resolve(true))), sleep(WAIT_MS).then(() => false)]);
      expect(closed).toBe(true);
      // Bun's idle timer ticks in steps of a few seconds; one second asked, closed well before WAIT_MS.
      expect(performance.now() - started).toBeLessThan(WAIT_MS);
    } finally {
      agent.destroy();
    }
  }, 30_000);
});
