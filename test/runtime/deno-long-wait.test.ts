import { afterAll, beforeAll, describe, it } from 'vitest';
import type { FakeUpstream } from '../helpers/fake-upstream.ts';
import { expectSlowAnswers, slowConfig, startSlowUpstream } from './long-wait.ts';
import { runtimeBin, spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';

const deno = runtimeBin('deno');

/**
 * Deno's server and fetch have no idle limit that counts while a request waits on its upstream,
 * so the Deno adapter lifts none (Bun.serve's default is ten seconds: bun-idle.test.ts). Twelve
 * seconds here keeps a future default of that kind from slipping in unseen;
 * SWITCHYARD_LONG_WAIT_S=610 waits past the default header time-out (the provider's is raised
 * above it), as measured on Deno 2.9.6 (README: long waits).
 */
const WAIT_MS = Number(process.env.SWITCHYARD_LONG_WAIT_S ?? 12) * 1000;

describe.skipIf(!deno)('deno adapter: nothing cuts a long wait', { concurrent: true }, () => {
  let upstream: FakeUpstream;
  let gateway: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startSlowUpstream(WAIT_MS);
    gateway = await spawnGateway(deno!, ['run', '-A', 'test/runtime/fixtures/serve-deno.ts'], slowConfig(upstream.url, WAIT_MS));
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('a JSON answer whose headers take the whole wait arrives', () => expectSlowAnswers(gateway.url, 'json'), WAIT_MS + 30_000);

  it('a stream that sits quiet for the whole wait, twice, is relayed whole', () => expectSlowAnswers(gateway.url, 'stream'), 2 * WAIT_MS + 30_000);
});
