/**
 * Pitfall 20 (LiteLLM #36655, PR #39037; Portkey #267, PR #1708, #722): errors in the wrong
 * family's envelope; a Bedrock 503 never became Anthropic's 529 `overloaded_error`, so Claude
 * Code could not classify or retry; a 200 carrying "Network connection lost"; a hard-coded 500
 * "Something went wrong"; a crash on an upstream `event: error` line. Upstream failures must reach
 * each family in its own envelope and status (overload as 529 for Claude-style clients), and a
 * failure mid-stream must end the stream with the family's error frame, never a clean finish.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFrame, exceptionFrame } from '../helpers/bedrock-frames.ts';
import { TEST_KEY } from '../helpers/gateway.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';
import { postMessages } from './helpers/messages-wire.ts';

let up: FourUpstreams;
/** Sends a few chunks, then destroys the socket: a connection lost mid-answer. */
let cut: Server;
let cutUrl: string;

const oChunk = (delta: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'c20', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

beforeAll(async () => {
  cut = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(oChunk({ role: 'assistant', content: 'Partial ans' }));
    setTimeout(() => res.destroy(), 20);
  });
  await new Promise<void>((resolve) => cut.listen(0, '127.0.0.1', resolve));
  cutUrl = `http://127.0.0.1:${(cut.address() as AddressInfo).port}`;
  up = await startFourUpstreams({
    providers: { flaky: { type: 'openai', baseUrl: `${cutUrl}/v1`, apiKey: 'sk-flaky' } },
    models: [
      { id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
      { id: 'flaky-oss', routes: [{ provider: 'flaky', model: 'openai/gpt-oss-120b' }] },
      { id: 'gemini-2.5-pro', routes: [{ provider: 'google', model: 'gemini-2.5-pro' }] },
      { id: 'bedrock-claude', routes: [{ provider: 'aws', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      { id: 'nova-pro', routes: [{ provider: 'aws', model: 'us.amazon.nova-pro-v1:0' }] },
    ],
  });
});
afterAll(async () => {
  await up.close();
  await new Promise<void>((resolve) => cut.close(() => resolve()));
});

const client = () => new Anthropic1({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
const ask = (model: string) => ({ model, max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }] });
const overloaded = {
  oss: () => up.oss.reply(() => ({ status: 503, body: { error: { message: 'Service Unavailable', type: 'server_error', code: 503 } } })),
  google: () => up.google.reply(() => ({ status: 503, body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } } })),
  aws: () => up.aws.reply(() => ({ error: { type: 'ServiceUnavailableException', message: 'Bedrock is unable to process your request.', status: 503 } })),
};

describe('pitfall 20: an overloaded upstream reaches a Claude-style client as 529 overloaded_error', () => {
  it.each([
    ['OpenAI-compatible host 503', 'acme.gpt-oss-120b', overloaded.oss],
    ['Gemini 503 UNAVAILABLE', 'acme.gemini-2.5-pro', overloaded.google],
    ['Bedrock ServiceUnavailableException (Converse)', 'acme.nova-pro', overloaded.aws],
    ['Bedrock ServiceUnavailableException (Claude, InvokeModel)', 'acme.bedrock-claude', overloaded.aws],
  ])('%s → OverloadedError 529', async (_name, model, arrange) => {
    arrange();
    for (const stream of [false, true]) {
      const err = (await (stream ? client().messages.stream(ask(model)).finalMessage() : client().messages.create(ask(model))).catch((e: unknown) => e)) as InstanceType<typeof Anthropic1.APIError>;
      expect([err.constructor.name, err.status]).toEqual(['OverloadedError', 529]);
      expect(err.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: expect.any(String) }, request_id: expect.stringMatching(/^req_/) });
    }
  });

  it('the same OpenAI-host 503 reaches a Gemini-style client as 503 UNAVAILABLE', async () => {
    overloaded.oss();
    const res = await fetch(`${up.gateway.url}/api/gemini/v1beta/models/acme.gpt-oss-120b:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: { code: 503, message: 'Upstream oss: Service Unavailable', status: 'UNAVAILABLE' } });
  });
});

describe('pitfall 20: other upstream failures keep their class and message', () => {
  it.each([
    [429, 'RateLimitError', 'rate_limit_error', { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }],
    [500, 'InternalServerError', 'api_error', { error: { message: 'CUDA out of memory', type: 'internal_error' } }],
    [400, 'BadRequestError', 'invalid_request_error', { error: { message: "This model's maximum context length is 131072 tokens", type: 'invalid_request_error', code: 'context_length_exceeded' } }],
  ] as const)('OpenAI-compatible %i → %s (%s) in the Anthropic envelope, upstream message kept', async (status, className, type, body) => {
    up.oss.reply(() => ({ status, body, headers: status === 429 ? { 'retry-after': '7' } : ({} as Record<string, string>) }));
    const err = (await client().messages.create(ask('acme.gpt-oss-120b')).catch((e: unknown) => e)) as InstanceType<typeof Anthropic1.APIError>;
    expect([err.constructor.name, err.status]).toEqual([className, status]);
    expect(err.error).toEqual({ type: 'error', error: { type, message: `Upstream oss: ${body.error.message}` }, request_id: expect.stringMatching(/^req_/) });
    // The body's request_id is the gateway's own, the one the SDK read from the request-id header.
    expect((err.error as { request_id: string }).request_id).toBe(err.requestID);
    if (status === 429) expect(err.headers?.get('retry-after')).toBe('7');
  });
});

/** Raw SSE of one Claude-style streaming call. */
async function streamWire(model: string): Promise<{ status: number; events: Array<{ event: string; data: any }> }> {
  const res = await postMessages(up.gateway.url, { ...ask(model), stream: true });
  const text = await res.text();
  const events = text.split('\n\n').filter((b) => b.trim()).map((b) => ({ event: /^event: (.*)$/m.exec(b)?.[1] ?? '', data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) }));
  return { status: res.status, events };
}

describe('pitfall 20: failures mid-stream end with event: error, never a clean message_stop', () => {
  const MID_STREAM = [
    [
      'an OpenAI-compatible `data: {"error":…}` chunk',
      'acme.gpt-oss-120b',
      () => up.oss.reply(() => ({ chunks: [oChunk({ role: 'assistant', content: 'Partial ans' }), `data: ${JSON.stringify({ error: { message: 'Upstream provider overloaded', type: 'server_error', code: 503 } })}\n\n`] })),
      'overloaded_error',
    ],
    [
      'an OpenAI-compatible `event: error` line',
      'acme.gpt-oss-120b',
      () => up.oss.reply(() => ({ chunks: [oChunk({ role: 'assistant', content: 'Partial ans' }), `event: error\ndata: ${JSON.stringify({ error: { message: 'Internal error', type: 'server_error' } })}\n\n`] })),
      'api_error',
    ],
    [
      'a Gemini error chunk',
      'acme.gemini-2.5-pro',
      () =>
        up.google.reply(() => ({
          chunks: [
            `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Partial ans' }] }, index: 0 }], usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } })}\n\n`,
            `data: ${JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } })}\n\n`,
          ],
        })),
      'overloaded_error',
    ],
    [
      'a Bedrock exception frame',
      'acme.nova-pro',
      () =>
        up.aws.reply(() => ({
          frames: [
            eventFrame('messageStart', { role: 'assistant' }),
            eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Partial ans' } }),
            exceptionFrame('throttlingException', { message: 'Too many tokens, please wait before trying again.' }),
          ],
        })),
      'rate_limit_error',
    ],
    ['a connection lost mid-answer', 'acme.flaky-oss', () => {}, 'api_error'],
  ] as const;

  it.each(MID_STREAM)('%s', async (_name, model, arrange, type) => {
    arrange();
    const { status, events } = await streamWire(model);
    expect(status).toBe(200);
    expect(events[0]!.event).toBe('message_start');
    expect(events.some((e) => e.event === 'content_block_delta' && e.data.delta.text === 'Partial ans')).toBe(true);
    expect(events.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type, message: expect.any(String) } } });
    expect(events.filter((e) => e.event === 'message_stop' || e.event === 'message_delta')).toEqual([]);

    arrange();
    const err = (await client().messages.stream({ ...ask(model) }).finalMessage().catch((e: unknown) => e)) as Error;
    expect(err.constructor.name).toBe('APIError');
    expect(err.message).toContain(type);
  });

  it('an error before the first event is a real HTTP status, not a 200 with an error frame', async () => {
    up.oss.reply(() => ({ chunks: [`data: ${JSON.stringify({ error: { message: 'Upstream provider overloaded', type: 'server_error', code: 503 } })}\n\n`] }));
    const res = await postMessages(up.gateway.url, { ...ask('acme.gpt-oss-120b'), stream: true });
    expect([res.status, res.headers.get('content-type')]).toEqual([529, 'application/json']);
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Upstream oss: Upstream provider overloaded' }, request_id: expect.stringMatching(/^req_/) });
  });
});
