import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, sseChunks, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { loadFixture, loadJsonFixture } from '../helpers/streams.ts';
import { readAnswerHeaderNames } from '../helpers/answer-headers.ts';
import { KEEP_OBJECT_BYTES } from '../../core/http/json-body.ts';

type AnyClient = InstanceType<typeof Anthropic1>;
const SDKS: Array<[string, new (opts: Record<string, unknown>) => unknown, string]> = [
  ['@anthropic-ai/sdk 1.x', Anthropic1 as never, '2026-10-21'],
  ['@anthropic-ai/sdk 0.x', Anthropic0 as never, '2023-06-01'],
];

const CLAUDE = 'acme.claude-sonnet-4-6';
const OSS = 'acme.gpt-oss-120b';
const weatherTool = { name: 'get_weather', description: 'Get weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

let anthropic: FakeUpstream;
let oss: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  anthropic = await startFakeUpstream();
  oss = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: {
        claude: { type: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant-upstream' },
        oss: { type: 'openai', baseUrl: `${oss.url}/v1`, apiKey: 'sk-oss-upstream', replayReasoning: true },
      },
      models: [
        { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6-20260101' }] },
        { id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
      ],
      limits: { maxBodyBytes: 256 * 1024 },
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await anthropic.close();
  await oss.close();
});
beforeEach(() => {
  anthropic.requests.length = 0;
  oss.requests.length = 0;
});

/** Turns of a long agent conversation with text in one- to four-byte UTF-8 (~90 KB as JSON). */
function longContext(): Array<{ role: 'user' | 'assistant'; content: string }> {
  return Array.from({ length: 60 }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `turn ${i}: café — 日本 🎉 "quoted" \\ ${'lorem ipsum '.repeat(120)}` }));
}

const sse = (name: string): FakeHandler => () => ({ chunks: sseChunks(loadFixture(name)), delayMs: 2 });
const json = (name: string, status = 200): FakeHandler => () => ({ status, body: loadJsonFixture(name) });

describe.each(SDKS)('%s', (_name, Client, version) => {
  const client = () => new Client({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 }) as AnyClient;

  describe('Claude model on the Anthropic API (same-family fast path)', () => {
    it('messages.create returns the upstream message; only the model is rewritten upstream', async () => {
      anthropic.reply(json('anthropic/upstream-message.json'));
      const message = await client().messages.create({ model: CLAUDE, max_tokens: 1024, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
      expect(message.content).toEqual(loadJsonFixture('anthropic/upstream-message.json').content);
      expect(message.stop_reason).toBe('tool_use');
      const seen = anthropic.requests[0]!;
      expect(seen.url).toBe('/v1/messages');
      expect(seen.json).toEqual({ model: 'claude-sonnet-4-6-20260101', max_tokens: 1024, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
      expect(seen.headers['x-api-key']).toBe('sk-ant-upstream');
      expect(seen.headers.authorization).toBeUndefined();
      expect(seen.headers['anthropic-version']).toBe(version);
      expect(JSON.stringify(seen.headers)).not.toContain(TEST_KEY);
    });

    it("a relayed answer keeps only the upstream's content type: its account, rate-limit and infrastructure headers stay behind", async () => {
      const upstreamHeaders = loadJsonFixture<Record<string, string>>('anthropic/upstream-response-headers.json');
      anthropic.reply(() => ({ body: loadJsonFixture('anthropic/upstream-message.json'), headers: upstreamHeaders }));
      const { data, response } = await client().messages.create({ model: CLAUDE, max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      expect(data.stop_reason).toBe('tool_use');
      const id = response.headers.get('request-id');
      expect(id).toMatch(/\S/);
      expect(id).not.toBe(upstreamHeaders['request-id']);
      expect((data as unknown as { _request_id?: string })._request_id).toBe(id);
      expect(readAnswerHeaderNames(response.headers)).toEqual(['content-type', 'request-id', 'x-request-id']);
      expect(response.headers.get('content-type')).toBe('application/json');

      anthropic.reply(() => ({ chunks: sseChunks(loadFixture('anthropic/upstream-thinking-tool.sse')), headers: upstreamHeaders }));
      const streamed = await client().messages.create({ model: CLAUDE, max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }], stream: true }).withResponse();
      for await (const _event of streamed.data);
      expect(readAnswerHeaderNames(streamed.response.headers)).toEqual(['cache-control', 'content-type', 'request-id', 'x-accel-buffering', 'x-request-id']);
      expect(streamed.response.headers.get('content-type')).toBe('text/event-stream');
      expect(streamed.response.headers.get('cache-control')).toBe('no-cache');
    });

    it("a coding agent's long context (past the size whose parse is let go) goes up as the SDK's own bytes, only the model spliced in", async () => {
      anthropic.reply(json('anthropic/upstream-message.json'));
      const params = { model: CLAUDE, max_tokens: 1024, system: 'Résumé — naïve ✓', messages: longContext(), tools: [weatherTool] };
      await client().messages.create(params);
      const seen = anthropic.requests[0]!;
      expect(seen.body.length).toBeGreaterThan(KEEP_OBJECT_BYTES);
      expect(seen.body).toBe(JSON.stringify({ ...params, model: 'claude-sonnet-4-6-20260101' }));
    });

    it('messages.stream() → finalMessage() accumulates thinking, signature, text and tool input', async () => {
      anthropic.reply(sse('anthropic/upstream-thinking-tool.sse'));
      const final = await client().messages.stream({ model: CLAUDE, max_tokens: 2048, messages: [{ role: 'user', content: 'Weather?' }], tools: [weatherTool] }).finalMessage();
      expect(final.content).toEqual([
        { type: 'thinking', thinking: 'Need weather. Call tool.', signature: 'EqQBCgIYAhIM...' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ]);
      expect(final.usage.output_tokens).toBe(42);
    });

    it('a mid-stream overloaded error surfaces as an APIError from the stream', async () => {
      anthropic.reply(sse('anthropic/upstream-overloaded.sse'));
      const err = await client().messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage().catch((e: unknown) => e);
      expect((err as Error).constructor.name).toBe('APIError');
      expect((err as { status?: number }).status).toBeUndefined();
      expect(String((err as Error).message)).toContain('overloaded_error');
    });

    it('count_tokens uses the upstream counter', async () => {
      anthropic.reply(() => ({ body: { input_tokens: 1234 } }));
      const { data, response } = await client().messages.countTokens({ model: CLAUDE, messages: [{ role: 'user', content: 'hello' }] }).withResponse();
      expect(data.input_tokens).toBe(1234);
      expect(anthropic.requests[0]!.url).toBe('/v1/messages/count_tokens');
      expect(response.headers.get('x-switchyard-token-count') ?? 'upstream').toBe('upstream');
    });
  });

  describe('gpt-oss on an OpenAI-compatible host (translated)', () => {
    it('messages.create translates text and usage', async () => {
      oss.reply(json('openai/text.json'));
      const message = await client().messages.create({ model: OSS, max_tokens: 256, system: 'Be terse.', messages: [{ role: 'user', content: 'Say hi' }] });
      expect(message.type).toBe('message');
      expect(message.role).toBe('assistant');
      expect(message.model).toBe(OSS);
      expect(message.content[0]).toMatchObject({ type: 'text' });
      expect(message.stop_reason).toBe('end_turn');
      const sent = oss.requests[0]!;
      expect(sent.url).toBe('/v1/chat/completions');
      expect(sent.headers.authorization).toBe('Bearer sk-oss-upstream');
      expect(sent.json).toMatchObject({ model: 'openai/gpt-oss-120b', messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Say hi' }] });
    });

    it('translates a long context', async () => {
      oss.reply(json('openai/text.json'));
      const messages = longContext();
      await client().messages.create({ model: OSS, max_tokens: 256, messages });
      const sent = oss.requests[0]!.json as { messages: Array<{ role: string; content: unknown }> };
      expect(sent.messages.map((m) => m.role)).toEqual(messages.map((m) => m.role));
      expect(sent.messages.at(-1)!.content).toBe(messages.at(-1)!.content);
    });

    it('tool use and thinking round trip through the stream helper and back', async () => {
      oss.reply(sse('openai/reasoning-content-tool-call.sse'));
      const final = await client().messages.stream({ model: OSS, max_tokens: 1024, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] }).finalMessage();
      expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
      const thinking = final.content[0] as { thinking: string; signature: string };
      expect(thinking.thinking).toBe('The user wants the weather in Paris.');
      expect(thinking.signature).toMatch(/^sy1\.openai\./);
      expect(final.content[2]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
      expect(final.stop_reason).toBe('tool_use');
      expect(oss.requests[0]!.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });

      oss.reply(json('openai/text.json'));
      const toolUse = final.content[2] as { id: string };
      await client().messages.create({
        model: OSS,
        max_tokens: 1024,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: final.content as never },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '18°C, sunny' }] },
        ],
      });
      const replay = oss.requests[1]!.json.messages;
      expect(replay[1]).toMatchObject({ role: 'assistant', reasoning_content: 'The user wants the weather in Paris.', tool_calls: [{ id: toolUse.id, type: 'function', function: { name: 'get_weather' } }] });
      expect(JSON.parse(replay[1].tool_calls[0].function.arguments)).toEqual({ city: 'Paris' });
      expect(replay[2]).toEqual({ role: 'tool', tool_call_id: toolUse.id, content: '18°C, sunny' });
      expect(replay).toHaveLength(3);
    });

    it('an error as the first stream chunk becomes a real 429, not a 200 with an error event', async () => {
      oss.reply(() => ({ chunks: ['data: {"error":{"message":"Rate limit reached for model","type":"rate_limit_exceeded","param":null,"code":"rate_limit_exceeded"}}\n\n'] }));
      const err = (await client().messages.stream({ model: OSS, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage().catch((e: unknown) => e)) as Error & { status?: number };
      expect(err.constructor.name).toBe('RateLimitError');
      expect(err.status).toBe(429);
    });

    it('count_tokens gives an estimate marked as such', async () => {
      const { data, response } = await client().messages.countTokens({ model: OSS, messages: [{ role: 'user', content: 'hello there, how are you today?' }] }).withResponse();
      expect(data.input_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
      expect(oss.requests).toHaveLength(0);
    });

    it('a PDF to a host without file support is a clear 400, never a silent drop', async () => {
      const err = (await client().messages.create({
        model: OSS,
        max_tokens: 100,
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' } }, { type: 'text', text: 'Summarise' }] }],
      }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic1.BadRequestError>;
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/document/i);
      expect(oss.requests).toHaveLength(0);
    });
  });

  describe('errors arrive as the SDK error class for their status', () => {
    it.each([
      [400, 'invalid_request_error', 'BadRequestError'],
      [403, 'permission_error', 'PermissionDeniedError'],
      [404, 'not_found_error', 'NotFoundError'],
      [429, 'rate_limit_error', 'RateLimitError'],
      [500, 'api_error', 'InternalServerError'],
    ])('upstream %i %s → %s', async (status, type, className) => {
      anthropic.reply(() => ({ status, body: { type: 'error', error: { type, message: `upstream says ${type}` } } }));
      const err = (await client().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as Error & { status: number };
      expect(err.constructor.name).toBe(className);
      expect(err.status).toBe(status);
    });

    it('the provider rejecting the gateway\'s own credentials is a 502, never a 401 blaming the client key', async () => {
      anthropic.reply(() => ({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }));
      const err = (await client().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as Error & { status: number };
      expect(err.status).toBe(502);
      expect(err.constructor.name).toBe('InternalServerError');
      expect(err.message).toContain("rejected the gateway's credentials");
    });

    it('upstream 529 overloaded stays 529 (OverloadedError in 1.x)', async () => {
      anthropic.reply(() => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }));
      const err = (await client().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as Error & { status: number };
      expect(err.status).toBe(529);
      expect(['OverloadedError', 'InternalServerError']).toContain(err.constructor.name);
    });

    it('a wrong key is an AuthenticationError; an unknown model a NotFoundError naming it', async () => {
      const bad = new Client({ apiKey: 'sk-wrong', baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 }) as AnyClient;
      const auth = (await bad.messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as Error;
      expect(auth.constructor.name).toBe('AuthenticationError');
      const missing = (await client().messages.create({ model: 'acme.nope', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as Error;
      expect(missing.constructor.name).toBe('NotFoundError');
      expect(missing.message).toContain('acme.nope');
    });

    it('a schema error on a translated route is a 400 naming the field, before any upstream call', async () => {
      const err = (await client().messages.create({ model: OSS, max_tokens: 10, messages: [{ role: 'robot' as never, content: 'x' }] }).catch((e: unknown) => e)) as Error & { status: number };
      expect(err.status).toBe(400);
      expect(err.message).toContain('messages.0.role');
      expect(oss.requests).toHaveLength(0);
    });

    it('on the fast path only model, stream and max_tokens are checked here; the rest is the upstream\'s to refuse', async () => {
      const bad = { model: 'robot' as never, max_tokens: 10, messages: [{ role: 'robot' as never, content: 'x' }] };
      const missing = (await client().messages.create({ ...bad, model: undefined as never }).catch((e: unknown) => e)) as Error & { status: number };
      expect([missing.status, missing.message]).toEqual([400, expect.stringContaining('model: is required')]);
      const cap = (await client().messages.create({ ...bad, model: CLAUDE, max_tokens: -1 }).catch((e: unknown) => e)) as Error & { status: number };
      expect([cap.status, cap.message]).toEqual([400, expect.stringContaining('max_tokens: must be 0 or more')]);
      expect(anthropic.requests).toHaveLength(0);
      anthropic.reply(() => ({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: "messages.0.role: Input should be 'user' or 'assistant'" } } }));
      const err = (await client().messages.create({ ...bad, model: CLAUDE }).catch((e: unknown) => e)) as Error & { status: number };
      expect(err.status).toBe(400);
      expect(err.message).toContain('messages.0.role');
      expect(anthropic.requests).toHaveLength(1);
    });

    it('a body over the limit is a 413', async () => {
      const err = (await client().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(300 * 1024) }] }).catch((e: unknown) => e)) as Error & { status: number };
      expect(err.status).toBe(413);
    });
  });
});
