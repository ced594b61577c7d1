import { describe, expect, it } from 'vitest';
import { createOpenAIUpstream } from '../../../../core/upstreams/openai/index.ts';
import type { OpenAIProviderConfig } from '../../../../core/upstreams/openai/types.ts';
import { sseChunks, startFakeUpstream } from '../../../helpers/fake-upstream.ts';
import { collect, loadFixture } from '../../../helpers/streams.ts';

const config: OpenAIProviderConfig = {
  type: 'openai',
  baseUrl: 'http://127.0.0.1:8000/v1',
  apiKey: '',
  reasoningField: 'reasoning',
  replayReasoning: false,
  maxTokensField: 'max_tokens',
  supportsFiles: false,
};

describe('createOpenAIUpstream', () => {
  it('is an openai-kind upstream with no passthrough and no token counter', () => {
    const upstream = createOpenAIUpstream('vllm', config);
    expect(upstream.kind).toBe('openai');
    expect(upstream.passthrough).toBeUndefined();
    expect(upstream.countTokens).toBeUndefined();
  });

  it('wires the provider name and config into every direction', async () => {
    const upstream = createOpenAIUpstream('vllm', config);
    const target = { provider: 'vllm', config, upstreamModel: 'm' };
    const req = { model: 'm', system: [], messages: [], stream: false, source: { family: 'gemini' as const, extra: {} } };
    const wire = await upstream.writeRequest(req, target, () => {});
    expect(wire.url).toBe('http://127.0.0.1:8000/v1/chat/completions');
    expect((await upstream.readError(new Response('{"error":{"message":"nope"}}', { status: 400 }))).message).toBe('Upstream vllm: nope');
    expect(upstream.readResponse({ choices: [] }, req).model).toBe('m');
    expect(upstream.readStream(req)).toHaveProperty('readable');
  });
});

describe('createOpenAIUpstream over HTTP', () => {
  it('sends the written request and reads the streamed answer and an error status', async () => {
    const fake = await startFakeUpstream(() => ({ chunks: sseChunks(loadFixture('openai/reasoning-then-text.sse')), delayMs: 1 }));
    try {
      const upstream = createOpenAIUpstream('vllm', { ...config, baseUrl: `${fake.url}/v1`, apiKey: 'secret' });
      const req = { model: 'openai/gpt-oss-120b', system: [], messages: [{ role: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] }], stream: true, source: { family: 'anthropic' as const, extra: {} } };
      const wire = await upstream.writeRequest(req, { provider: 'vllm', config, upstreamModel: req.model }, () => {});
      const res = await fetch(wire.url, { method: 'POST', headers: wire.headers, body: wire.body as string });
      const events = await collect(res.body!.pipeThrough(upstream.readStream(req)));
      expect(events.map((e) => e.type)).toEqual([
        'start', 'block-start', 'reasoning-delta', 'reasoning-delta', 'reasoning-delta', 'signature', 'block-end',
        'block-start', 'text-delta', 'text-delta', 'block-end', 'finish',
      ]);
      expect(fake.requests[0]).toMatchObject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
        json: { model: 'openai/gpt-oss-120b', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } },
      });

      fake.reply(() => ({ status: 503, headers: { 'retry-after': '5' }, body: { error: { message: 'busy' } } }));
      const failed = await fetch(wire.url, { method: 'POST', headers: wire.headers, body: wire.body as string });
      const err = await upstream.readError(failed);
      expect([err.kind, err.status, err.message, err.opts.retryAfter]).toEqual(['overloaded', 503, 'Upstream vllm: busy', 5]);
    } finally {
      await fake.close();
    }
  });
});
