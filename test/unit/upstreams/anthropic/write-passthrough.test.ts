import { describe, expect, it, vi } from 'vitest';
import { JsonBody, KEEP_OBJECT_BYTES } from '../../../../core/http/json-body.ts';
import { parseJsonBody } from '../../../../core/http/read-body.ts';
import { ENVELOPE_PREFIX } from '../../../../core/signature.ts';
import type { RouteTarget } from '../../../../core/catalog.ts';
import type { AnthropicConfig } from '../../../../core/upstreams/anthropic/wire-types.ts';
import { writeAnthropicPassthrough } from '../../../../core/upstreams/anthropic/write-passthrough.ts';
import type { PassthroughCall } from '../../../../core/upstreams/types.ts';
import { bodyText, jsonBody } from '../../../helpers/json-body.ts';

const config: AnthropicConfig = { type: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-gateway', version: '2023-06-01' };
const target: RouteTarget = { provider: 'claude', config, upstreamModel: 'claude-sonnet-4-6-20260101' };

const call = (headers: Record<string, string>, over: Partial<PassthroughCall> = {}): PassthroughCall => ({
  target,
  source: jsonBody({ model: 'sonnet', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }], context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] }, stream: true }),
  headers: new Headers(headers),
  action: 'messages',
  stream: true,
  ...over,
});

describe('writeAnthropicPassthrough', () => {
  it("sends the client's text as it came, with only the model's value spliced in", () => {
    const text = '{ "max_tokens": 512,\n  "model": "sonnet", "messages": [{"role":"user","content":"Hi \\u00e9 1.50"}], "n": 1.50 }';
    const wire = writeAnthropicPassthrough(call({}, { source: jsonBody(text) }), config);
    expect(bodyText(wire.body)).toBe(text.replace('"sonnet"', '"claude-sonnet-4-6-20260101"'));
  });

  it("sends the client's own bytes, BOM left out, with the model spliced into them", () => {
    const text = '{"system":"café — 🎉","model":"sonnet","messages":[{"role":"user","content":"naïve"}]}';
    const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text));
    const source = new JsonBody(bytes, new TextDecoder().decode(bytes), JSON.parse(text) as Record<string, unknown>);
    const wire = writeAnthropicPassthrough(call({}, { source }), config);
    expect(wire.body).toBeInstanceOf(Uint8Array);
    expect(wire.body).toEqual(new TextEncoder().encode(text.replace('"sonnet"', '"claude-sonnet-4-6-20260101"')));
  });

  it('splices into the text where the bytes were not valid UTF-8 (the decoder repaired them)', () => {
    const bytes = Uint8Array.of(...new TextEncoder().encode('{"model":"sonnet","s":"'), 0xff, ...new TextEncoder().encode('"}'));
    const text = new TextDecoder().decode(bytes);
    const wire = writeAnthropicPassthrough(call({}, { source: new JsonBody(bytes, text, JSON.parse(text) as Record<string, unknown>) }), config);
    expect(wire.body).toBe('{"model":"claude-sonnet-4-6-20260101","s":"\uFFFD"}');
  });

  it('splices a large body whose object was let go without parsing it again', () => {
    const source = jsonBody({ model: 'sonnet', max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(KEEP_OBJECT_BYTES) }] });
    source.release();
    const large = call({}, { source });
    const parse = vi.spyOn(JSON, 'parse');
    let parses: number;
    let wire: ReturnType<typeof writeAnthropicPassthrough>;
    try {
      wire = writeAnthropicPassthrough(large, config);
      parses = parse.mock.calls.length;
    } finally {
      parse.mockRestore();
    }
    expect(parses).toBe(0);
    expect(bodyText(wire.body).slice(0, 60)).toBe('{"model":"claude-sonnet-4-6-20260101","max_tokens":5,"messag');
  });

  it('splices a large body into its bytes from the scan, without a parse; serialises it when the scan saw an envelope', () => {
    const pad = 'é'.repeat(KEEP_OBJECT_BYTES);
    const plain = new TextEncoder().encode(`{"model":"sonnet","max_tokens":5,"messages":[{"role":"user","content":"${pad}"}]}`);
    const plainCall = call({});
    const parse = vi.spyOn(JSON, 'parse');
    let wire: ReturnType<typeof writeAnthropicPassthrough>;
    let parsed: number[];
    try {
      plainCall.source = parseJsonBody(plain, 4 * KEEP_OBJECT_BYTES, { marker: ENVELOPE_PREFIX });
      wire = writeAnthropicPassthrough(plainCall, config);
      parsed = parse.mock.calls.map(([arg]) => String(arg).length);
    } finally {
      parse.mockRestore();
    }
    expect(Math.max(...parsed)).toBeLessThan(30);
    expect(wire.body).toBeInstanceOf(Uint8Array);
    expect(bodyText(wire.body)).toBe(bodyText(plain).replace('"sonnet"', '"claude-sonnet-4-6-20260101"'));

    const replayed = { model: 'sonnet', max_tokens: 5, messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: pad, signature: 'sy1.openai.abc' }, { type: 'text', text: 'ok' }] }] };
    const source = parseJsonBody(new TextEncoder().encode(JSON.stringify(replayed)), 4 * KEEP_OBJECT_BYTES, { marker: ENVELOPE_PREFIX });
    const rewritten = writeAnthropicPassthrough(call({}, { source, warn: () => {} }), config);
    expect(JSON.parse(rewritten.body as string)).toEqual({ ...replayed, model: 'claude-sonnet-4-6-20260101', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'ok' }] }] });
  });

  it('falls back to serialising the parsed body when the text carries a gateway signature envelope', () => {
    const body = { model: 'sonnet', max_tokens: 5, messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature: 'sy1.openai.abc' }, { type: 'text', text: 'ok' }] }] };
    const warnings: string[] = [];
    const wire = writeAnthropicPassthrough(call({}, { source: jsonBody(body), warn: (m) => warnings.push(m) }), config);
    expect(JSON.parse(wire.body as string)).toEqual({ ...body, model: 'claude-sonnet-4-6-20260101', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'ok' }] }] });
    expect(warnings).toHaveLength(1);
  });

  it("rewrites only the model, forwards version and beta, and never the client's key", () => {
    const wire = writeAnthropicPassthrough(
      call({
        authorization: 'Bearer sk-client-secret',
        'x-api-key': 'sk-client-secret',
        'anthropic-version': '2026-10-21',
        'anthropic-beta': 'context-management-2025-06-27,interleaved-thinking-2025-05-14',
        'user-agent': 'claude-cli/2.1',
        'x-stainless-lang': 'js',
        cookie: 'session=1',
        'anthropic-workspace-id': 'ws_1',
      }),
      config,
    );
    expect({ ...wire, body: bodyText(wire.body) }).toEqual({
      url: 'https://api.anthropic.com/v1/messages',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'sk-gateway',
        'anthropic-version': '2026-10-21',
        'anthropic-beta': 'context-management-2025-06-27,interleaved-thinking-2025-05-14',
      },
      body: '{"model":"claude-sonnet-4-6-20260101","max_tokens":512,"messages":[{"role":"user","content":"Hi"}],"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]},"stream":true}',
    });
    expect(JSON.stringify({ ...wire, body: bodyText(wire.body) })).not.toContain('sk-client-secret');
  });

  it('uses the configured version when the client sent none, and the count_tokens path', () => {
    const wire = writeAnthropicPassthrough(call({ 'x-api-key': 'sk-client' }, { action: 'count_tokens', source: jsonBody({ model: 'sonnet', messages: [] }) }), {
      ...config,
      baseUrl: 'http://127.0.0.1:9999/prefix/',
      headers: { 'X-Tenant': 't1' },
    });
    expect({ ...wire, body: bodyText(wire.body) }).toEqual({
      url: 'http://127.0.0.1:9999/prefix/v1/messages/count_tokens',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-gateway', 'anthropic-version': '2023-06-01', 'x-tenant': 't1' },
      body: '{"model":"claude-sonnet-4-6-20260101","messages":[]}',
    });
  });

  it('refuses actions of another family', () => {
    expect(() => writeAnthropicPassthrough(call({}, { action: 'generateContent' }), config)).toThrow(expect.objectContaining({ kind: 'internal' }));
  });
});
