import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { loadJsonFixture } from '../helpers/streams.ts';

/**
 * The upstream time-out covers the wait for response headers. Two clients enforce it: the Node
 * adapter's undici client (its own header timer) and any other fetch (core's AbortController and
 * timer); both must give the family's 504 and let the next route answer.
 */
let slow: FakeUpstream;
let fast: FakeUpstream;
/** A port that was just listened on and closed: connecting to it is refused. */
let closedUrl: string;
const gateways: Array<[string, RunningGateway]> = [];

beforeAll(async () => {
  slow = await startFakeUpstream();
  fast = await startFakeUpstream();
  const gone = await startFakeUpstream();
  closedUrl = gone.url;
  await gone.close();
  const config = testConfig({
    providers: {
      slow: { type: 'anthropic', baseUrl: slow.url, apiKey: 'sk-ant', timeoutMs: 150 },
      fast: { type: 'anthropic', baseUrl: fast.url, apiKey: 'sk-ant' },
      down: { type: 'anthropic', baseUrl: closedUrl, apiKey: 'sk-ant' },
      'down-oss': { type: 'openai', baseUrl: `${closedUrl}/v1`, apiKey: 'sk-oss' },
    },
    models: [
      { id: 'hangs', routes: [{ provider: 'slow', model: 'claude-up' }] },
      { id: 'falls-back', routes: [{ provider: 'slow', model: 'claude-up' }, { provider: 'fast', model: 'claude-up' }] },
      { id: 'unreachable', routes: [{ provider: 'down', model: 'claude-up' }] },
      { id: 'unreachable-oss', routes: [{ provider: 'down-oss', model: 'gpt-oss-120b' }] },
    ],
  });
  gateways.push(['undici client (Node adapter)', await startTestGateway(config)]);
  gateways.push(['global fetch', await startTestGateway(config, { fetch: (url, init) => fetch(url, init) })]);
});
afterAll(async () => {
  await Promise.all(gateways.map(([, g]) => g.close()));
  await Promise.all([slow.close(), fast.close()]);
});
beforeEach(() => {
  // Headers only after 3 s: well past the provider's 150 ms.
  slow.reply(async () => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return { body: loadJsonFixture('anthropic/upstream-message.json') };
  });
  fast.reply(() => ({ body: loadJsonFixture('anthropic/upstream-message.json') }));
});

describe.each(['undici client (Node adapter)', 'global fetch'])('upstream header time-out, %s', (name) => {
  const gateway = () => gateways.find(([n]) => n === name)![1];
  const client = () => new Anthropic({ apiKey: TEST_KEY, baseURL: `${gateway().url}/api/anthropic`, maxRetries: 0 });

  it('an upstream that sends no headers in time is a 504 timeout_error naming the provider', async () => {
    const started = performance.now();
    const err = (await client().messages.create({ model: 'acme.hangs', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(err.status).toBe(504);
    expect(err.error).toMatchObject({ type: 'error', error: { type: 'timeout_error', message: expect.stringContaining('"slow" did not answer within 150 ms') } });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('the next route answers when the first times out', async () => {
    const message = await client().messages.create({ model: 'acme.falls-back', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.type).toBe('message');
  });
});

describe.each(['undici client (Node adapter)', 'global fetch'])('upstream that refuses the connection, %s', (name) => {
  const gateway = () => gateways.find(([n]) => n === name)![1];
  const client = () => new Anthropic({ apiKey: TEST_KEY, baseURL: `${gateway().url}/api/anthropic`, maxRetries: 0 });

  it.each([
    ['passthrough', 'acme.unreachable', 'down'],
    ['translated', 'acme.unreachable-oss', 'down-oss'],
  ])('%s: a 502 api_error naming the provider, nothing of the socket error', async (_path, model, provider) => {
    for (const stream of [false, true]) {
      const err = (await client().messages.create({ model, max_tokens: 5, stream, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
      expect(err.status).toBe(502);
      expect(err.error).toMatchObject({ type: 'error', error: { type: 'api_error', message: `Upstream "${provider}" could not be reached` } });
    }
  });
});
