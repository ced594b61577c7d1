import { describe, expect, it } from 'vitest';
import type { RouteTarget } from '../../../../core/catalog.ts';
import type { ChatRequest } from '../../../../core/ir.ts';
import { createBedrockUpstream } from '../../../../core/upstreams/bedrock/index.ts';
import type { BedrockConfig } from '../../../../core/upstreams/bedrock/sign.ts';
import type { PassthroughCall, UpstreamRequest } from '../../../../core/upstreams/types.ts';
import { parseAuthorization, sigV4Signature } from '../../../helpers/sigv4.ts';
import { jsonBody } from '../../../helpers/json-body.ts';

const config: BedrockConfig = {
  type: 'bedrock',
  region: 'eu-west-1',
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'secret',
  sessionToken: 'token',
  headers: { 'X-Amzn-Bedrock-Trace': 'ENABLED' },
};
const upstream = createBedrockUpstream('aws', config);
const CLAUDE = 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0';
const OSS = 'openai.gpt-oss-120b-1:0';
const target = (model: string): RouteTarget => ({ provider: 'aws', config, upstreamModel: model });

const request = (model: string, over: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  stream: false,
  maxTokens: 100,
  source: { family: 'anthropic', betas: ['interleaved-thinking-2025-05-14,thinking-token-count-2026-05-13'], extra: {} },
  ...over,
});

/** Checks the signature with the independent implementation, then returns the request without auth headers. */
function verified(wire: UpstreamRequest) {
  const url = new URL(wire.url);
  const auth = parseAuthorization(wire.headers.authorization ?? '');
  expect(auth).toBeDefined();
  const signed: Record<string, string> = { host: url.host };
  for (const name of auth!.signedHeaders) if (name !== 'host') signed[name] = wire.headers[name]!;
  const expected = sigV4Signature({
    method: 'POST', path: url.pathname, headers: signed, body: wire.body, secretAccessKey: 'secret', region: 'eu-west-1', service: 'bedrock', amzDate: wire.headers['x-amz-date']!,
  });
  expect(auth!.signature).toBe(expected.signature);
  // Every header but content-type (which aws4fetch leaves unsigned) is covered by the signature.
  expect(auth!.signedHeaders).toEqual(['host', ...Object.keys(wire.headers).filter((h) => h !== 'authorization' && h !== 'content-type')].sort());
  const { authorization: _a, 'x-amz-date': _d, ...headers } = wire.headers;
  return { url: wire.url, headers, body: typeof wire.body === 'string' ? JSON.parse(wire.body) : undefined };
}

describe('createBedrockUpstream', () => {
  it('sends Claude through InvokeModel with the Anthropic body, anthropic_version and filtered betas', async () => {
    const warnings: string[] = [];
    const wire = verified(await upstream.writeRequest(request(CLAUDE), target(CLAUDE), (w) => warnings.push(w)));
    expect(wire).toEqual({
      url: 'https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-amzn-bedrock-trace': 'ENABLED', 'x-amz-security-token': 'token' },
      body: {
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        anthropic_beta: ['interleaved-thinking-2025-05-14'],
      },
    });
    expect(warnings).toEqual(['anthropic-beta values Bedrock does not accept were dropped: thinking-token-count-2026-05-13']);
  });

  it('streams Claude through invoke-with-response-stream', async () => {
    const wire = verified(await upstream.writeRequest(request(CLAUDE, { stream: true, source: { family: 'gemini', extra: {} } }), target(CLAUDE), () => {}));
    expect(wire.url).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    expect(wire.headers['x-amzn-bedrock-accept']).toBe('application/json');
    expect(wire.body).not.toHaveProperty('stream');
    expect(wire.body).not.toHaveProperty('anthropic_beta');
  });

  it('sends other models through Converse and ConverseStream', async () => {
    const plain = verified(await upstream.writeRequest(request(OSS), target(OSS), () => {}));
    expect(plain).toEqual({
      url: 'https://bedrock-runtime.eu-west-1.amazonaws.com/model/openai.gpt-oss-120b-1%3A0/converse',
      headers: { 'content-type': 'application/json', 'x-amzn-bedrock-trace': 'ENABLED', 'x-amz-security-token': 'token' },
      body: { messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { maxTokens: 100 } },
    });
    const streamed = verified(await upstream.writeRequest(request(OSS, { stream: true }), target(OSS), () => {}));
    expect(streamed.url).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com/model/openai.gpt-oss-120b-1%3A0/converse-stream');
  });

  it('reads responses with the matching reader', () => {
    const claude = upstream.readResponse({ id: 'msg_bdrk_1', model: 'claude-x', content: [{ type: 'thinking', thinking: 't', signature: 's' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 2 } }, request(CLAUDE));
    expect(claude.parts).toEqual([{ type: 'reasoning', text: 't', signature: { origin: 'bedrock', value: 's' } }]);
    const oss = upstream.readResponse({ output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 } }, request(OSS));
    expect(oss.parts).toEqual([{ type: 'text', text: 'ok' }]);
    expect(oss.model).toBe(OSS);
  });

  it.each([
    ['anthropic.claude-3-haiku-20240307-v1:0', true],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', true],
    ['global.anthropic.claude-opus-4-6-v1', true],
    ['apac.anthropic.claude-sonnet-4-20250514-v1:0', true],
    ['arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-sonnet-20241022-v2:0', true],
    ['openai.gpt-oss-20b-1:0', false],
    ['us.amazon.nova-pro-v1:0', false],
    ['meta.llama3-70b-instruct-v1:0', false],
  ])('offers the Claude-style passthrough for %s: %s', (model, expected) => {
    expect(upstream.passthrough?.family).toBe('anthropic');
    expect(upstream.passthrough?.accepts?.(target(model))).toBe(expected);
  });

  it('passes a Claude-style body through with only model, stream and betas adjusted', async () => {
    const call: PassthroughCall = {
      target: target(CLAUDE),
      source: jsonBody({ model: 'acme.claude', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }], context_management: { edits: [] } }),
      headers: new Headers({ 'anthropic-beta': 'context-management-2025-06-27, claude-code-20250219', 'anthropic-version': '2023-06-01' }),
      action: 'messages',
      stream: true,
    };
    const wire = verified(await upstream.passthrough!.writeRequest(call));
    expect(wire.url).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    expect(wire.body).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
      context_management: { edits: [] },
      anthropic_beta: ['context-management-2025-06-27'],
    });
  });

  it.each([
    ['a Claude-style body (passthrough)', 'passthrough', 'advanced-tool-use-2025-11-20, interleaved-thinking-2025-05-14'],
    ['a translated request, named both ways', 'translated', 'advanced-tool-use-2025-11-20,tool-search-tool-2025-10-19, interleaved-thinking-2025-05-14'],
  ])('names tool search as Bedrock does in %s (advanced-tool-use-2025-11-20 → tool-search-tool-2025-10-19), once', async (_name, path, betas) => {
    const warnings: string[] = [];
    const body = path === 'passthrough'
      ? verified(await upstream.passthrough!.writeRequest({
          target: target(CLAUDE),
          source: jsonBody({ model: 'acme.claude', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }], tools: [{ name: 'Glob', input_schema: { type: 'object' }, defer_loading: true }] }),
          headers: new Headers({ 'anthropic-beta': betas }),
          action: 'messages',
          stream: true,
        })).body
      : verified(await upstream.writeRequest(request(CLAUDE, { source: { family: 'anthropic', betas: [betas], extra: {} } }), target(CLAUDE), (w) => warnings.push(w))).body;
    expect(body.anthropic_beta).toEqual(['tool-search-tool-2025-10-19', 'interleaved-thinking-2025-05-14']);
    expect(warnings).toEqual([]);
  });

  it('passes count_tokens through CountTokens with the InvokeModel body as a blob', async () => {
    const call: PassthroughCall = {
      target: target(CLAUDE),
      source: jsonBody({ model: 'acme.claude', messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'enabled', budget_tokens: 2000 } }),
      headers: new Headers(),
      action: 'count_tokens',
      stream: false,
    };
    const wire = verified(await upstream.passthrough!.writeRequest(call));
    expect(wire.url).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens');
    const inner = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(wire.body.input.invokeModel.body), (c) => c.charCodeAt(0))));
    expect(inner).toEqual({ anthropic_version: 'bedrock-2023-05-31', messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 2001 });
  });

  it('counts tokens with CountTokens (invokeModel for Claude, converse otherwise)', async () => {
    const sent: UpstreamRequest[] = [];
    const send = async (req: UpstreamRequest) => {
      sent.push(req);
      return Response.json({ inputTokens: 17 });
    };
    expect(await upstream.countTokens!(request(OSS, { system: [{ type: 'text', text: 'Be brief.' }] }), target(OSS), send)).toBe(17);
    expect(verified(sent[0]!)).toMatchObject({
      url: 'https://bedrock-runtime.eu-west-1.amazonaws.com/model/openai.gpt-oss-120b-1%3A0/count-tokens',
      body: { input: { converse: { messages: [{ role: 'user', content: [{ text: 'Hi' }] }], system: [{ text: 'Be brief.' }] } } },
    });
    expect(await upstream.countTokens!(request(CLAUDE), target(CLAUDE), send)).toBe(17);
    expect(Object.keys(verified(sent[1]!).body.input)).toEqual(['invokeModel']);

    const failing = async () => new Response(JSON.stringify({ message: 'The provided model doesn\'t support counting tokens.' }), { status: 400, headers: { 'x-amzn-ErrorType': 'ValidationException' } });
    await expect(upstream.countTokens!(request(OSS), target(OSS), failing)).rejects.toMatchObject({ kind: 'invalid_request', message: "The provided model doesn't support counting tokens." });
  });
});
