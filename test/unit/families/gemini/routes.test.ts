import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGateway, type GatewayConfigInput } from '../../../../core/index.ts';
import { JsonBody } from '../../../../core/http/json-body.ts';
import type { ChatRequest, ChatResult, StreamEvent } from '../../../../core/ir.ts';
import type { PassthroughCall, Upstream, UpstreamRequest } from '../../../../core/upstreams/types.ts';
import { TEST_KEY, testConfig } from '../../../helpers/gateway.ts';

/** What the fake upstreams saw and will answer; reset per test. */
const fake = vi.hoisted(() => ({
  requests: [] as ChatRequest[],
  /** Each call with the body's object as the writer saw it (the body is let go once written). */
  passthrough: [] as Array<PassthroughCall & { object: Record<string, unknown> }>,
  result: undefined as ChatResult | undefined,
  events: [] as StreamEvent[],
  /** The passthrough requests as written, and the bodies the fetch was handed. */
  wires: [] as UpstreamRequest[],
  /** What the translated route's readers were given of the request. */
  readWith: [] as unknown[],
  sent: [] as unknown[],
}));

vi.mock('../../../../core/upstreams/registry.ts', () => ({
  createUpstreams: () => {
    const translated: Upstream = {
      kind: 'anthropic',
      writeRequest: (req) => {
        fake.requests.push(req);
        return { url: 'http://fake.invalid/translated', headers: {}, body: '{}' };
      },
      readResponse: (_body, req) => {
        fake.readWith.push(req);
        return fake.result!;
      },
      readStream: (req) => {
        fake.readWith.push(req);
        return new TransformStream<Uint8Array, StreamEvent>({
          flush(controller) {
            for (const event of fake.events) controller.enqueue(event);
          },
        });
      },
      readError: async () => {
        throw new Error('unused');
      },
    };
    const gemini: Upstream = {
      ...translated,
      kind: 'gemini',
      passthrough: {
        family: 'gemini',
        writeRequest: (call) => {
          fake.passthrough.push({ ...call, object: call.source.object });
          const wire = { url: 'http://fake.invalid/passthrough', headers: {}, body: JSON.stringify(call.source.object) };
          fake.wires.push(wire);
          return wire;
        },
      },
    };
    return new Map([
      ['claude', translated],
      ['google', gemini],
    ]);
  },
}));

const config: GatewayConfigInput = testConfig({
  providers: {
    claude: { type: 'anthropic', apiKey: 'k' },
    google: { type: 'gemini', apiKey: 'k' },
  },
  models: [
    { id: 'claude-x', created: 1, routes: [{ provider: 'claude', model: 'claude-upstream' }] },
    { id: 'gemini-2.5-flash', created: 1, routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
  ],
  keys: [
    { id: 'test', key: TEST_KEY },
    { id: 'limited', key: 'sk-limited-key', models: ['gemini-2.5-flash'] },
  ],
});

const upstreamFetch = async (url: string, init?: { body?: unknown }) =>
  fake.sent.push(init?.body) && url.endsWith('/passthrough')
    ? Response.json({ candidates: [{ content: { role: 'model', parts: [{ text: 'from gemini' }] }, finishReason: 'STOP', index: 0 }] })
    : new Response(url.endsWith('/translated') ? '{}' : 'no', { status: url.endsWith('/translated') ? 200 : 404 });

const gateway = createGateway(config, { fetch: upstreamFetch, log: () => {} });
const BASE = 'http://gw.test/api/gemini/v1beta';

function call(path: string, body?: unknown, key = TEST_KEY): Promise<Response> {
  return gateway.fetch(
    new Request(`${BASE}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

const hi = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
const textResult: ChatResult = { id: 'msg_9', model: 'claude-upstream', parts: [{ type: 'text', text: 'Hello!' }], finish: 'stop', usage: { inputTokens: 3, outputTokens: 2 } };
const textEvents: StreamEvent[] = [
  { type: 'start', id: 'msg_9', model: 'claude-upstream' },
  { type: 'block-start', index: 0, block: { type: 'text' } },
  { type: 'text-delta', index: 0, text: 'Hel' },
  { type: 'text-delta', index: 0, text: 'lo!' },
  { type: 'block-end', index: 0 },
  { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } },
];

afterEach(() => {
  fake.requests.length = 0;
  fake.passthrough.length = 0;
  fake.wires.length = 0;
  fake.readWith.length = 0;
  fake.sent.length = 0;
});

describe('Gemini routes', () => {
  it('answers generateContent through a translated route', async () => {
    fake.result = textResult;
    const res = await call('/models/acme.claude-x:generateContent', { ...hi, generationConfig: { responseLogprobs: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-switchyard-warnings')).toBe('generationConfig.responseLogprobs/logprobs dropped: not available for this model');
    expect(await res.json()).toEqual({
      candidates: [{ content: { parts: [{ text: 'Hello!' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
      modelVersion: 'acme.claude-x',
      responseId: 'msg_9',
    });
    expect(fake.requests[0]).toMatchObject({ model: 'claude-upstream', stream: false, messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] });
  });

  it('streams SSE with ?alt=sse and the JSON-array form without it', async () => {
    fake.events = textEvents;
    const sse = await call('/models/claude-x:streamGenerateContent?alt=sse', hi);
    expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await sse.text();
    expect(text.split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, '')).candidates[0].content.parts)).toEqual([
      [{ text: 'Hel' }],
      [{ text: 'lo!' }],
      [{ text: '' }],
    ]);
    expect(fake.requests[0]!.stream).toBe(true);

    const array = await call('/models/claude-x:streamGenerateContent', hi);
    expect(array.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    // Like every stream the gateway sends, relayed or translated, SSE or not.
    expect(array.headers.get('cache-control')).toBe('no-cache');
    expect(array.headers.get('x-accel-buffering')).toBe('no');
    const body = await array.text();
    expect(body.startsWith('[{"candidates"')).toBe(true);
    const chunks = JSON.parse(body);
    expect(chunks).toHaveLength(3);
    expect(chunks[2].candidates[0].finishReason).toBe('STOP');
  });

  it('reads the model in the path and ?alt as a URL parser would, escaped or plain', async () => {
    fake.events = textEvents;
    for (const path of ['/models/claude-x:streamGenerateContent?key=k&alt=sse', '/models/claude%2Dx:streamGenerateContent?alt=%73se', '/models/claude-x%3AstreamGenerateContent?alt=sse&alt=json']) {
      const res = await call(path, hi);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('text/event-stream; charset=utf-8');
      await res.text();
    }
    for (const path of ['/models/claude-x:streamGenerateContent?alt=sse+', '/models/claude-x:streamGenerateContent?xalt=sse', '/models/claude-x:streamGenerateContent?alt']) {
      const res = await call(path, hi);
      expect(res.headers.get('content-type'), path).toBe('application/json; charset=UTF-8');
      await res.text();
    }
    expect((await call('/models/claude-x%ZZ:generateContent', hi)).status).toBe(404);
  });

  it('passes a Gemini route through, keeping the client framing', async () => {
    const res = await call('/models/models/gemini-2.5-flash:generateContent', { ...hi, labels: { a: 'b' } });
    expect(await res.json()).toMatchObject({ candidates: [{ content: { parts: [{ text: 'from gemini' }] } }] });
    await call('/models/acme.gemini-2.5-flash:streamGenerateContent?alt=sse', hi);
    await call('/models/gemini-2.5-flash:streamGenerateContent', hi);
    expect(fake.passthrough.map((c) => [c.action, c.stream, c.target.upstreamModel])).toEqual([
      ['generateContent', false, 'gemini-2.5-flash'],
      ['streamGenerateContent', true, 'gemini-2.5-flash'],
      ['streamGenerateContent', false, 'gemini-2.5-flash'],
    ]);
    expect(fake.passthrough[0]!.object).toEqual({ ...hi, labels: { a: 'b' } });
    expect(fake.requests).toEqual([]);
  });

  it('hands the written body to the fetch alone, and lets the client body go after its last route', async () => {
    await call('/models/gemini-2.5-flash:generateContent', hi);
    expect(fake.sent).toEqual([JSON.stringify(hi)]);
    // Neither is held while the upstream answers (a long prompt held that long outlived young collections).
    expect(fake.wires[0]!.body).toBe('');
    expect(() => fake.passthrough[0]!.source.bytes).toThrow(expect.objectContaining({ kind: 'internal' }));
  });

  it('lets the client body go once a translated call’s last route has written its request', async () => {
    fake.result = textResult;
    const drop = vi.spyOn(JsonBody.prototype, 'drop');
    try {
      await call('/models/claude-x:generateContent', hi);
      expect(drop).toHaveBeenCalledTimes(1);
      expect(fake.requests).toHaveLength(1);
      // The reader is given the model, not the prompt it would hold for a stream's life.
      expect(fake.readWith).toEqual([{ model: 'claude-upstream', stream: false }]);
    } finally {
      drop.mockRestore();
    }
  });

  it('counts tokens ({contents} and {generateContentRequest})', async () => {
    const res = await call('/models/acme.claude-x:countTokens', hi);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-token-count')).toBe('estimate');
    const { totalTokens } = (await res.json()) as { totalTokens: number };
    expect(totalTokens).toBeGreaterThan(0);
    const nested = await call('/models/claude-x:countTokens', { generateContentRequest: { model: 'models/claude-x', ...hi } });
    expect(await nested.json()).toEqual({ totalTokens });
    const bad = await call('/models/claude-x:countTokens', {});
    expect(bad.status).toBe(400);
  });

  it('answers errors in the Gemini envelope', async () => {
    const unknownAction = await call('/models/claude-x:embedContent', hi);
    expect(unknownAction.status).toBe(404);
    expect(await unknownAction.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });

    const unknownModel = await call('/models/acme.nope:generateContent', hi);
    expect(unknownModel.status).toBe(404);
    expect(((await unknownModel.json()) as { error: { message: string } }).error.message).toContain('acme.nope');

    const refused = await call('/models/claude-x:generateContent', { ...hi, generationConfig: { candidateCount: 2 } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { code: 400, message: 'generationConfig.candidateCount: only 1 candidate can be generated for this model', status: 'INVALID_ARGUMENT' },
    });

    const forbidden = await call('/models/claude-x:generateContent', hi, 'sk-limited-key');
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });

    const noKey = await gateway.fetch(new Request(`${BASE}/models/claude-x:generateContent`, { method: 'POST', body: JSON.stringify(hi) }));
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });

  it('lists models with prefixed names, pages, and respects key allow-lists', async () => {
    const list = await call('/models');
    expect(await list.json()).toEqual({
      models: [
        {
          name: 'models/acme.claude-x',
          baseModelId: 'claude-x',
          version: '001',
          displayName: 'claude-x',
          description: 'claude-x, served by acme',
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
        {
          name: 'models/acme.gemini-2.5-flash',
          baseModelId: 'gemini-2.5-flash',
          version: '001',
          displayName: 'gemini-2.5-flash',
          description: 'gemini-2.5-flash, served by acme',
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
        },
      ],
    });
    const page1 = (await (await call('/models?pageSize=1')).json()) as { models: { name: string }[]; nextPageToken?: string };
    expect(page1.models.map((m) => m.name)).toEqual(['models/acme.claude-x']);
    const page2 = (await (await call(`/models?pageSize=1&pageToken=${page1.nextPageToken}`)).json()) as { models: { name: string }[]; nextPageToken?: string };
    expect(page2).toEqual({ models: [expect.objectContaining({ name: 'models/acme.gemini-2.5-flash' })] });

    const limited = (await (await call('/models', undefined, 'sk-limited-key')).json()) as { models: { name: string }[] };
    expect(limited.models.map((m) => m.name)).toEqual(['models/acme.gemini-2.5-flash']);

    expect(await (await call('/models/acme.claude-x')).json()).toMatchObject({ name: 'models/acme.claude-x' });
    expect((await call('/models/claude-x')).status).toBe(200);
    expect((await call('/models/acme.claude-x', undefined, 'sk-limited-key')).status).toBe(404);
  });
});
