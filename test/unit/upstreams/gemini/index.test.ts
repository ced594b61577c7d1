import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest, StreamEvent } from '../../../../core/ir.ts';
import type { GeminiProviderConfig } from '../../../../core/upstreams/gemini/endpoint.ts';
import { createGeminiUpstream } from '../../../../core/upstreams/gemini/index.ts';
import { startFakeUpstream, type FakeUpstream } from '../../../helpers/fake-upstream.ts';
import { bytesInPieces, collect, loadFixture, loadJsonFixture } from '../../../helpers/streams.ts';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());

const req = (stream: boolean): ChatRequest => ({
  model: 'ignored-alias',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Capital of France?' }] }],
  stream,
  source: { family: 'openai', extra: {} },
});

function setup() {
  const config: GeminiProviderConfig = { type: 'gemini', baseUrl: fake.url, apiKey: 'AIzaTEST', apiVersion: 'v1beta' };
  return { upstream: createGeminiUpstream('google', config), target: { provider: 'google', config, upstreamModel: 'gemini-2.5-flash' } };
}

async function send(wire: { url: string; headers: Record<string, string>; body: string | Uint8Array }): Promise<Response> {
  return fetch(wire.url, { method: 'POST', headers: wire.headers, body: wire.body as BodyInit });
}

describe('createGeminiUpstream over HTTP', () => {
  it('streams a translated call through SSE', async () => {
    fake.reply(() => ({ chunks: bytesInPieces(loadFixture('gemini/upstream-text.sse'), 40), headers: { 'content-type': 'text/event-stream' } }));
    const { upstream, target } = setup();
    const res = await send(await upstream.writeRequest(req(true), target, () => {}));
    const events: StreamEvent[] = await collect(res.body!.pipeThrough(upstream.readStream(req(true))));
    const seen = fake.requests.at(-1)!;
    expect({ url: seen.url, key: seen.headers['x-goog-api-key'], body: seen.json }).toEqual({
      url: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      key: 'AIzaTEST',
      body: { contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }] },
    });
    expect(events.map((e) => e.type)).toEqual(['start', 'block-start', 'text-delta', 'text-delta', 'text-delta', 'block-end', 'finish']);
  });

  it('reads a non-streamed answer and an error', async () => {
    const { upstream, target } = setup();
    fake.reply(() => ({ body: loadJsonFixture('gemini/upstream-response-text.json') }));
    const ok = await send(await upstream.writeRequest(req(false), target, () => {}));
    expect(upstream.readResponse(await ok.json(), req(false)).parts.map((p) => p.type)).toEqual(['reasoning', 'text']);
    fake.reply(() => ({ status: 429, body: loadJsonFixture('gemini/upstream-error-429.json') }));
    const failed = await send(await upstream.writeRequest(req(false), target, () => {}));
    expect(await upstream.readError(failed)).toMatchObject({ kind: 'rate_limit', status: 429, opts: { retryAfter: 7, code: 'RESOURCE_EXHAUSTED' } });
  });

  it('offers the Gemini-family fast path', () => {
    expect(setup().upstream.passthrough?.family).toBe('gemini');
  });
});
