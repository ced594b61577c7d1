import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunkFrame, eventFrame, exceptionFrame } from '../helpers/bedrock-frames.ts';
import type { FakeBedrock } from '../helpers/fake-bedrock.ts';
import { TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { loadJsonFixture } from '../helpers/streams.ts';
import { AWS, BEDROCK_API_KEY, type BedrockContract, CLAUDE, CLAUDE_ID, clearCalls, converseFrames, invokeFrames, json, onlyCall, OSS, OSS_ID, startBedrockContract } from './bedrock-contract-setup.ts';

/**
 * Claude-style and OpenAI-style SDKs against models on AWS Bedrock, with a fake Bedrock that checks
 * every SigV4 signature and speaks the binary event stream. Claude goes through InvokeModel (the
 * Claude-style door passes the client's body through); gpt-oss through Converse (translated).
 */
type AnyClient = InstanceType<typeof Anthropic1>;
const SDKS: Array<[string, new (opts: Record<string, unknown>) => unknown]> = [
  ['@anthropic-ai/sdk 1.x', Anthropic1 as never],
  ['@anthropic-ai/sdk 0.x', Anthropic0 as never],
];

const weatherTool = { name: 'get_weather', description: 'Get weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

let fake: FakeBedrock;
let gateway: RunningGateway;
let contract: BedrockContract;

beforeAll(async () => {
  contract = await startBedrockContract();
  ({ fake, gateway } = contract);
});
afterAll(() => contract.close());
beforeEach(() => clearCalls(fake));

const only = () => onlyCall(fake);
const caught = <T>(promise: Promise<T>) => promise.then(() => undefined, (e: unknown) => e as Error & { status?: number });

describe('openai SDK', () => {
  it('models.list() shows both Bedrock models in the one-api shape', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/openai/v1`, maxRetries: 0 });
    const page = await client.models.list();
    expect(page.data).toEqual([
      { id: 'claude-sonnet-4-5', object: 'model', created: 1759104000, owned_by: 'acme', permission: [], root: 'claude-sonnet-4-5', parent: null },
      { id: 'gpt-oss-120b', object: 'model', created: 1754352000, owned_by: 'acme', permission: [], root: 'gpt-oss-120b', parent: null },
    ]);
    expect(fake.calls).toHaveLength(0);
  });
});

describe.each(SDKS)('%s', (_name, Client) => {
  const client = () => new Client({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 }) as AnyClient;

  describe('Claude on Bedrock (InvokeModel, SigV4 with session token)', () => {
    it('messages.create sends the Anthropic-native body to /invoke, signed, and relays the message', async () => {
      fake.reply(json('bedrock-claude-message.json'));
      const message = await client().messages.create(
        { model: CLAUDE, max_tokens: 1024, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], tools: [weatherTool] },
        { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14,claude-code-20250219' } },
      );
      expect(message).toEqual(loadJsonFixture('contract/bedrock-claude-message.json'));
      const call = only();
      expect(call).toMatchObject({ operation: 'invoke', modelId: CLAUDE_ID, path: '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke', auth: 'sigv4' });
      expect(call.json).toEqual({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 1024,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hi' }],
        tools: [weatherTool],
        anthropic_beta: ['interleaved-thinking-2025-05-14'],
      });
      expect(call.headers.authorization).toMatch(
        new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS.accessKeyId}/\\d{8}/us-east-1/bedrock/aws4_request, SignedHeaders=[^,]*x-amz-security-token[^,]*, Signature=[0-9a-f]{64}$`),
      );
      expect(call.headers['x-amz-security-token']).toBe(AWS.sessionToken);
      expect(call.headers.accept).toBe('application/json');
      expect(fake.rejected).toEqual([]);
      const sent = JSON.stringify(call.headers);
      expect(sent).not.toContain(TEST_KEY);
      expect(sent).not.toContain(AWS.secretAccessKey);
      expect(call.headers['anthropic-version']).toBeUndefined();
    });

    it('messages.stream() → finalMessage() over InvokeModelWithResponseStream: thinking + signature, text, tool input', async () => {
      fake.reply(() => ({ frames: invokeFrames('bedrock-claude-stream.json'), delayMs: 1 }));
      const final = await client().messages.stream({ model: CLAUDE, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] }).finalMessage();
      expect(final.id).toBe('msg_bdrk_01Xz7hV2c8S9o4YkC2nGmQ1e');
      expect(final.content).toEqual([
        { type: 'thinking', thinking: 'Need the weather. Call get_weather.', signature: 'EqoBCkgIBxABGAIiQBdrkStreamSig02' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_bdrk_01Stream7yQpR2', name: 'get_weather', input: { city: 'Paris' } },
      ]);
      expect(final.stop_reason).toBe('tool_use');
      expect(final.usage).toMatchObject({ input_tokens: 410, output_tokens: 57 });
      const call = only();
      expect(call).toMatchObject({ operation: 'invoke-with-response-stream', path: '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream' });
      expect(call.json).toEqual({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
      });
      expect(call.headers['x-amzn-bedrock-accept']).toBe('application/json');
    });

    it('raw stream events are Anthropic events, with Bedrock invocation metrics removed', async () => {
      fake.reply(() => ({ frames: invokeFrames('bedrock-claude-stream.json') }));
      const events: unknown[] = [];
      for await (const event of await client().messages.create({ model: CLAUDE, max_tokens: 2048, stream: true, messages: [{ role: 'user', content: 'Weather?' }] })) events.push(event);
      const upstream = loadJsonFixture<Array<Record<string, unknown>>>('contract/bedrock-claude-stream.json');
      expect(events).toEqual([...upstream.slice(0, -1), { type: 'message_stop' }]);
    });

    it('tool use round trip: thinking, signature and tool_use go back verbatim with the tool_result', async () => {
      fake.reply(json('bedrock-claude-tool-message.json'));
      const first = await client().messages.create({ model: CLAUDE, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
      const toolUse = first.content.find((b) => b.type === 'tool_use') as { id: string; input: unknown };
      expect(toolUse).toEqual({ type: 'tool_use', id: 'toolu_bdrk_01T1x6pB8JrWzEv5yRkN', name: 'get_weather', input: { city: 'Paris' } });

      fake.reply(json('bedrock-claude-message.json'));
      const history = [
        { role: 'user' as const, content: 'Weather in Paris?' },
        { role: 'assistant' as const, content: first.content as never },
        { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: toolUse.id, content: '18°C, sunny' }] },
      ];
      const second = await client().messages.create({ model: CLAUDE, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: history, tools: [weatherTool] });
      expect(second.content).toEqual([{ type: 'text', text: 'Hello from Bedrock.' }]);
      expect(fake.calls[1]!.json.messages).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: loadJsonFixture('contract/bedrock-claude-tool-message.json').content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_bdrk_01T1x6pB8JrWzEv5yRkN', content: '18°C, sunny' }] },
      ]);
    });

    it('a throttlingException frame before any chunk is a 429 RateLimitError (nothing was sent yet)', async () => {
      fake.reply(() => ({ frames: [exceptionFrame('throttlingException', { message: 'Too many requests, please wait before trying again.' })] }));
      const err = await caught(client().messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage());
      // The gateway waits for the first frame before committing the response, so the status is real.
      expect(err?.constructor.name).toBe('RateLimitError');
      expect(err?.status).toBe(429);
      expect(err?.message).toContain('Too many requests, please wait before trying again.');
    });

    it.each([
      ['modelStreamErrorException', 'api_error'],
      ['internalServerException', 'api_error'],
      ['serviceUnavailableException', 'overloaded_error'],
    ])('a %s frame mid-stream ends the stream with an APIError (%s); earlier text was delivered', async (exception, type) => {
      // message_start, the text block's start and its first delta, then the exception.
      const events = loadJsonFixture<unknown[]>('contract/bedrock-claude-stream.json');
      fake.reply(() => ({ frames: [events[0], events[6], events[7]].map((e) => chunkFrame(e)).concat(exceptionFrame(exception, { message: 'The model stream broke off.', originalStatusCode: 500 })) }));
      const texts: string[] = [];
      const stream = client().messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).on('text', (t) => texts.push(t));
      const err = await caught(stream.finalMessage());
      expect(texts).toEqual(['Let me ']);
      expect(err?.constructor.name).toBe('APIError');
      expect(err?.status).toBeUndefined();
      expect(err?.message).toContain(type);
    });

    it.each([
      ['ThrottlingException', 429, 429, ['RateLimitError'], 'Too many requests, please wait before trying again.'],
      ['ValidationException', 400, 400, ['BadRequestError'], 'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens'],
      ['ResourceNotFoundException', 404, 404, ['NotFoundError'], 'Model not found.'],
      ['InternalServerException', 500, 500, ['InternalServerError'], 'Internal server error'],
      ['ModelTimeoutException', 408, 504, ['GatewayTimeoutError', 'InternalServerError'], 'Model has timed out in processing the request.'],
    ])('HTTP %s (%i) → %i', async (type, status, clientStatus, classNames, message) => {
      fake.reply(() => ({ error: { type, message, status } }));
      const err = await caught(client().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
      expect(classNames).toContain(err?.constructor.name);
      expect(err?.status).toBe(clientStatus);
      expect(err?.message).toContain(message);
    });

    it.each([
      ['ServiceUnavailableException', 503, 'Bedrock is unable to process your request.'],
      ['ModelNotReadyException', 429, 'Model is not ready to serve inference requests.'],
    ])('HTTP %s (%i) → 529 overloaded_error', async (type, status, message) => {
      fake.reply(() => ({ error: { type, message, status } }));
      const err = (await caught(client().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }))) as Error & { status: number; error: unknown };
      expect(err.status).toBe(529);
      expect(['OverloadedError', 'InternalServerError']).toContain(err.constructor.name);
      expect(err.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    });

    it('HTTP AccessDeniedException → PermissionDeniedError without account, role or key ids', async () => {
      const leak = `User: arn:aws:sts::123456789012:assumed-role/switchyard-lambda/fn (${AWS.accessKeyId}) is not authorized to perform: bedrock:InvokeModel on resource: arn:aws:bedrock:us-east-1::foundation-model/x`;
      fake.reply(() => ({ error: { type: 'AccessDeniedException', message: leak, status: 403 } }));
      const err = await caught(client().messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
      expect(err?.constructor.name).toBe('PermissionDeniedError');
      expect(err?.status).toBe(403);
      for (const secret of ['123456789012', AWS.accessKeyId, 'arn:aws', 'switchyard-lambda']) expect(err?.message).not.toContain(secret);
    });

    it('count_tokens goes to CountTokens with the InvokeModel body as a base64 blob', async () => {
      fake.reply(() => ({ json: { inputTokens: 1234 } }));
      const { data, response } = await client().messages.countTokens({ model: CLAUDE, system: 'Be brief.', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
      expect(data).toEqual({ input_tokens: 1234 });
      expect(response.headers.get('x-switchyard-token-count')).toBe('upstream');
      const call = only();
      expect(call).toMatchObject({ operation: 'count-tokens', path: '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens', auth: 'sigv4' });
      expect(Object.keys(call.json.input)).toEqual(['invokeModel']);
      expect(JSON.parse(Buffer.from(call.json.input.invokeModel.body, 'base64').toString('utf8'))).toEqual({
        anthropic_version: 'bedrock-2023-05-31',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 1,
      });
    });

    it('count_tokens: a 200 without inputTokens is not relayed as a count; the answer is the marked estimate', async () => {
      fake.reply(() => ({ json: { tokens: 7 } }));
      const { data, response } = await client().messages.countTokens({ model: CLAUDE, messages: [{ role: 'user', content: 'hello there, how are you today?' }] }).withResponse();
      expect(response.status).toBe(200);
      expect(Object.keys(data)).toEqual(['input_tokens']);
      expect(data.input_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
      expect(only().operation).toBe('count-tokens');
    });

    it('count_tokens falls back to a marked estimate when Bedrock cannot count for the model', async () => {
      fake.reply(() => ({ error: { type: 'ValidationException', message: "The provided model doesn't support counting tokens.", status: 400 } }));
      const { data, response } = await client().messages.countTokens({ model: CLAUDE, messages: [{ role: 'user', content: 'hello there, how are you today?' }] }).withResponse();
      expect(data.input_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-switchyard-token-count')).toBe('estimate');
      expect(only().operation).toBe('count-tokens');
    });
  });

  describe('gpt-oss on Bedrock (Converse, Bedrock API key)', () => {
    const converseTool = { toolSpec: { name: 'get_weather', description: 'Get weather', inputSchema: { json: weatherTool.input_schema } } };

    it('messages.create: Converse body with bearer auth; reasoning → thinking, toolUse → tool_use, usage', async () => {
      fake.reply(json('bedrock-converse-response.json'));
      const message = await client().messages.create({ model: OSS, max_tokens: 512, system: 'Be brief.', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
      expect(message.id).toMatch(/^msg_bdrk_[0-9a-f]{24}$/);
      expect({ ...message, id: 'x' }).toEqual({
        id: 'x',
        type: 'message',
        role: 'assistant',
        model: OSS,
        content: [
          // gpt-oss reasoning is unsigned: shown, never replayed to Bedrock.
          { type: 'thinking', thinking: 'User asks for Paris weather. Use get_weather.', signature: '' },
          { type: 'text', text: 'Let me look that up.', citations: null },
          { type: 'tool_use', id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        stop_details: null,
        container: null,
        usage: { input_tokens: 96, output_tokens: 41, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      });
      const call = only();
      expect(call).toMatchObject({ operation: 'converse', modelId: OSS_ID, path: '/model/openai.gpt-oss-120b-1%3A0/converse', auth: 'bearer' });
      expect(call.headers.authorization).toBe(`Bearer ${BEDROCK_API_KEY}`);
      expect(call.headers['x-amz-date']).toBeUndefined();
      expect(call.json).toEqual({
        messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
        system: [{ text: 'Be brief.' }],
        inferenceConfig: { maxTokens: 512 },
        toolConfig: { tools: [converseTool] },
      });
    });

    it('messages.stream: ConverseStream reasoning → thinking, text, streamed tool input; then the tool round trip', async () => {
      fake.reply(() => ({ frames: converseFrames('bedrock-converse-stream.json'), delayMs: 1 }));
      const inputs: string[] = [];
      const stream = client()
        .messages.stream({ model: OSS, max_tokens: 512, thinking: { type: 'enabled', budget_tokens: 4096 }, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] })
        .on('inputJson', (partial) => inputs.push(partial));
      const final = await stream.finalMessage();
      expect(final.content).toEqual([
        { type: 'thinking', thinking: 'User asks for Paris weather. Use get_weather.', signature: '' },
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_use', id: 'tooluse_Q2bvxP3rT0yN8sLwE4mJcA', name: 'get_weather', input: { city: 'Paris' } },
      ]);
      expect(inputs).toEqual(['{"city":', '"Paris"}']);
      expect(final.stop_reason).toBe('tool_use');
      expect(final.usage).toMatchObject({ input_tokens: 96, output_tokens: 41, cache_read_input_tokens: 80 });
      expect(only()).toMatchObject({ operation: 'converse-stream', path: '/model/openai.gpt-oss-120b-1%3A0/converse-stream', auth: 'bearer' });
      expect(fake.calls[0]!.json).toEqual({
        messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
        inferenceConfig: { maxTokens: 512 },
        toolConfig: { tools: [converseTool] },
        additionalModelRequestFields: { reasoning_effort: 'medium' },
      });

      fake.reply(() => ({ json: { output: { message: { role: 'assistant', content: [{ text: 'Sunny, 18°C.' }] } }, stopReason: 'end_turn', usage: { inputTokens: 150, outputTokens: 9, totalTokens: 159 } } }));
      const second = await client().messages.create({
        model: OSS,
        max_tokens: 512,
        tools: [weatherTool],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: final.content as never },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tooluse_Q2bvxP3rT0yN8sLwE4mJcA', content: '18°C, sunny' }] },
        ],
      });
      expect(second.content).toEqual([{ type: 'text', text: 'Sunny, 18°C.', citations: null }]);
      expect(fake.calls[1]!.json.messages).toEqual([
        { role: 'user', content: [{ text: 'Weather in Paris?' }] },
        // The unsigned reasoning is not replayed (it would leak into later answers).
        { role: 'assistant', content: [{ text: 'Let me look that up.' }, { toolUse: { toolUseId: 'tooluse_Q2bvxP3rT0yN8sLwE4mJcA', name: 'get_weather', input: { city: 'Paris' } } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_Q2bvxP3rT0yN8sLwE4mJcA', content: [{ text: '18°C, sunny' }] } }] },
      ]);
    });

    it.each([
      ['end_turn', undefined, 'end_turn', null],
      ['max_tokens', undefined, 'max_tokens', null],
      ['stop_sequence', 'END', 'stop_sequence', 'END'],
      ['content_filtered', undefined, 'refusal', null],
      ['guardrail_intervened', undefined, 'refusal', null],
      ['model_context_window_exceeded', undefined, 'model_context_window_exceeded', null],
    ])('stopReason %s → stop_reason %s, streamed and not', async (stopReason, matched, expected, sequence) => {
      const extra = matched ? { additionalModelResponseFields: { stop_sequence: matched } } : {};
      const usage = { inputTokens: 7, outputTokens: 3, totalTokens: 10, cacheWriteInputTokens: 5 };
      fake.reply((call) =>
        call.operation === 'converse'
          ? { json: { output: { message: { role: 'assistant', content: [{ text: 'Done' }] } }, stopReason, usage, ...extra } }
          : { frames: [eventFrame('messageStart', { role: 'assistant' }), eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Done' } }), eventFrame('contentBlockStop', { contentBlockIndex: 0 }), eventFrame('messageStop', { stopReason, ...extra }), eventFrame('metadata', { usage })] },
      );
      const request = { model: OSS, max_tokens: 64, stop_sequences: ['END'], messages: [{ role: 'user' as const, content: 'Go' }] };
      const whole = await client().messages.create(request);
      const streamed = await client().messages.stream(request).finalMessage();
      for (const message of [whole, streamed]) {
        expect(message.stop_reason).toBe(expected);
        expect(message.stop_sequence).toBe(sequence);
        expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: 3, cache_creation_input_tokens: 5 });
      }
      expect(fake.calls.map((c) => c.json.inferenceConfig)).toEqual([{ maxTokens: 64, stopSequences: ['END'] }, { maxTokens: 64, stopSequences: ['END'] }]);
    });

    it('count_tokens asks CountTokens with the Converse fields', async () => {
      fake.reply(() => ({ json: { inputTokens: 21 } }));
      const { data, response } = await client().messages.countTokens({ model: OSS, system: 'Be brief.', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
      expect(data).toEqual({ input_tokens: 21 });
      expect(response.headers.get('x-switchyard-token-count')).toBe('upstream');
      expect(only()).toMatchObject({ operation: 'count-tokens', auth: 'bearer', json: { input: { converse: { messages: [{ role: 'user', content: [{ text: 'hello' }] }], system: [{ text: 'Be brief.' }] } } } });
    });

    it('HTTP ThrottlingException on Converse → RateLimitError', async () => {
      fake.reply(() => ({ error: { type: 'ThrottlingException', message: 'Too many tokens, please wait before trying again.', status: 429 } }));
      const err = await caught(client().messages.create({ model: OSS, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
      expect(err?.constructor.name).toBe('RateLimitError');
      expect(err?.status).toBe(429);
    });

    it('an exception frame mid-ConverseStream → APIError from the stream after the text so far', async () => {
      fake.reply(() => ({
        frames: [
          eventFrame('messageStart', { role: 'assistant' }),
          eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Par' } }),
          exceptionFrame('modelStreamErrorException', { message: 'Model stream error', originalStatusCode: 500, originalMessage: 'boom' }),
        ],
      }));
      const texts: string[] = [];
      const err = await caught(client().messages.stream({ model: OSS, max_tokens: 64, messages: [{ role: 'user', content: 'Go' }] }).on('text', (t) => texts.push(t)).finalMessage());
      expect(texts).toEqual(['Par']);
      expect(err?.constructor.name).toBe('APIError');
      expect(err?.message).toContain('api_error');
    });
  });
});
