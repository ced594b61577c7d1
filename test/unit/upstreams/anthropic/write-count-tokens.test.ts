import { describe, expect, it } from 'vitest';
import type { RouteTarget } from '../../../../core/catalog.ts';
import type { ChatRequest } from '../../../../core/ir.ts';
import { createAnthropicUpstream } from '../../../../core/upstreams/anthropic/index.ts';
import type { AnthropicConfig } from '../../../../core/upstreams/anthropic/wire-types.ts';
import type { UpstreamRequest } from '../../../../core/upstreams/types.ts';

const config: AnthropicConfig = { type: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-gateway', version: '2023-06-01' };
const target: RouteTarget = { provider: 'claude', config, upstreamModel: 'claude-sonnet-4-6' };

const req: ChatRequest = {
  model: 'claude-sonnet-4-6',
  system: [{ type: 'text', text: 'Sys' }],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Count me' }] }],
  stream: true,
  maxTokens: 100,
  temperature: 0.2,
  stop: ['x'],
  userId: 'u',
  tools: [{ type: 'function', name: 'f', inputSchema: { type: 'object' } }],
  toolChoice: { type: 'auto' },
  thinking: { mode: 'adaptive', effort: 'high' },
  source: { family: 'openai', extra: {} },
};

describe('countTokens', () => {
  it('posts the translated body without max_tokens, stream, stop_sequences, metadata or sampling', async () => {
    const sent: UpstreamRequest[] = [];
    const upstream = createAnthropicUpstream('claude', config);
    const n = await upstream.countTokens!(req, target, async (request) => {
      sent.push(request);
      return Response.json({ input_tokens: 1234 });
    });
    expect(n).toBe(1234);
    expect(sent.map((r) => ({ ...r, body: JSON.parse(r.body as string) }))).toEqual([
      {
        url: 'https://api.anthropic.com/v1/messages/count_tokens',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-gateway', 'anthropic-version': '2023-06-01' },
        body: {
          model: 'claude-sonnet-4-6',
          messages: [{ role: 'user', content: [{ type: 'text', text: 'Count me' }] }],
          system: [{ type: 'text', text: 'Sys' }],
          tools: [{ name: 'f', input_schema: { type: 'object' } }],
          tool_choice: { type: 'auto' },
          thinking: { type: 'adaptive' },
          output_config: { effort: 'high' },
        },
      },
    ]);
  });

  it('maps an upstream error', async () => {
    const upstream = createAnthropicUpstream('claude', config);
    const failing = upstream.countTokens!(req, target, async () =>
      Response.json({ type: 'error', error: { type: 'rate_limit_error', message: 'slow' } }, { status: 429, headers: { 'retry-after': '3' } }),
    );
    await expect(failing).rejects.toMatchObject({ kind: 'rate_limit', status: 429, opts: { retryAfter: 3 } });
  });
});

describe('createAnthropicUpstream', () => {
  it('offers the Claude-style fast path and reads a translated stream end to end', async () => {
    const upstream = createAnthropicUpstream('claude', config);
    expect([upstream.kind, upstream.passthrough?.family]).toEqual(['anthropic', 'anthropic']);
    const text = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1,"output_tokens":1}}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
    const events = [];
    const reader = new Response(text).body!.pipeThrough(upstream.readStream(req)).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
    expect(events).toEqual([
      { type: 'start', id: 'm', model: 'c', usage: { inputTokens: 1, outputTokens: 1 } },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
  });
});
