import Anthropic1 from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunkFrame, eventFrame, exceptionFrame } from '../helpers/bedrock-frames.ts';
import type { FakeBedrock } from '../helpers/fake-bedrock.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { loadJsonFixture } from '../helpers/streams.ts';
import { AWS, type BedrockContract, CLAUDE, CLAUDE_ID, clearCalls, converseFrames, invokeFrames, json, onlyCall, OSS, OSS_ID, startBedrockContract } from './bedrock-contract-setup.ts';

/**
 * Second half of the Bedrock contract tests (bedrock-sdk.test.ts has the Claude-style and
 * OpenAI-style SDKs): @google/genai against Claude (InvokeModel, translated) and gpt-oss (Converse)
 * on a fake Bedrock that checks every SigV4 signature; gateway credentials Bedrock refuses; and
 * client aborts reaching Bedrock.
 */

let fake: FakeBedrock;
let gateway: RunningGateway;
let ai: GoogleGenAI;
let contract: BedrockContract;

beforeAll(async () => {
  contract = await startBedrockContract();
  ({ fake, gateway } = contract);
  ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: `${gateway.url}/api/gemini` } });
});
afterAll(() => contract.close());
beforeEach(() => clearCalls(fake));

const only = () => onlyCall(fake);
const weatherDecl = { name: 'get_weather', description: 'Get weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

async function drain(stream: AsyncGenerator<GenerateContentResponse>): Promise<{ chunks: GenerateContentResponse[]; error?: unknown }> {
  const chunks: GenerateContentResponse[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

const text = (chunks: GenerateContentResponse[], thought = false) =>
  chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).filter((p) => typeof p.text === 'string' && !!p.thought === thought).map((p) => p.text).join('');
const calls = (chunks: GenerateContentResponse[]) => chunks.flatMap((c) => c.functionCalls ?? []);
const claudeToolMessage = loadJsonFixture('contract/bedrock-claude-tool-message.json');

describe('@google/genai', () => {
  it('generateContent on Claude: signed InvokeModel with the Anthropic-native body; text, STOP, usage', async () => {
    fake.reply(json('bedrock-claude-message.json'));
    const res = await ai.models.generateContent({ model: CLAUDE, contents: 'Hi', config: { systemInstruction: 'Be brief.', maxOutputTokens: 256 } });
    expect(res.text).toBe('Hello from Bedrock.');
    expect(res.candidates?.[0]).toEqual({ content: { parts: [{ text: 'Hello from Bedrock.' }], role: 'model' }, finishReason: 'STOP', index: 0 });
    expect(res.usageMetadata).toEqual({ promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 });
    expect(res.responseId).toBe('msg_bdrk_01WvKXDQTxHL1rJ3K9T8nqYo');
    const call = only();
    expect(call).toMatchObject({ operation: 'invoke', path: '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke', auth: 'sigv4' });
    expect(call.headers['x-amz-security-token']).toBe(AWS.sessionToken);
    expect(call.json).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 256,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      system: [{ type: 'text', text: 'Be brief.' }],
    });
    expect(fake.rejected).toEqual([]);
  });

  it('generateContent on gpt-oss: Converse with bearer auth; thoughts, text and the function call', async () => {
    fake.reply(json('bedrock-converse-response.json'));
    const res = await ai.models.generateContent({
      model: OSS,
      contents: 'Weather in Paris?',
      config: { tools: [{ functionDeclarations: [weatherDecl] }], thinkingConfig: { includeThoughts: true, thinkingBudget: 8000 } },
    });
    expect(res.candidates?.[0]?.content?.parts).toEqual([
      { text: 'User asks for Paris weather. Use get_weather.', thought: true },
      { text: 'Let me look that up.' },
      { functionCall: { id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather', args: { city: 'Paris' } } },
    ]);
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    expect(res.usageMetadata).toEqual({ promptTokenCount: 96, candidatesTokenCount: 41, totalTokenCount: 137 });
    const call = only();
    expect(call).toMatchObject({ operation: 'converse', path: '/model/openai.gpt-oss-120b-1%3A0/converse', auth: 'bearer' });
    expect(call.json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', description: 'Get weather', inputSchema: { json: weatherDecl.parametersJsonSchema } } }] },
      additionalModelRequestFields: { reasoning_effort: 'medium' },
    });
  });

  it('generateContentStream on Claude: InvokeModelWithResponseStream → thoughts, text, one whole functionCall, usage', async () => {
    fake.reply(() => ({ frames: invokeFrames('bedrock-claude-stream.json'), delayMs: 1 }));
    const { chunks, error } = await drain(
      await ai.models.generateContentStream({ model: CLAUDE, contents: 'Weather in Paris?', config: { maxOutputTokens: 4096, tools: [{ functionDeclarations: [weatherDecl] }], thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } } }),
    );
    expect(error).toBeUndefined();
    expect(text(chunks, true)).toBe('Need the weather. Call get_weather.');
    expect(text(chunks)).toBe('Let me check.');
    expect(calls(chunks)).toEqual([{ id: 'toolu_bdrk_01Stream7yQpR2', name: 'get_weather', args: { city: 'Paris' } }]);
    const last = chunks.at(-1)!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata).toEqual({ promptTokenCount: 410, candidatesTokenCount: 57, totalTokenCount: 467 });
    expect(new Set(chunks.map((c) => c.responseId))).toEqual(new Set(['msg_bdrk_01Xz7hV2c8S9o4YkC2nGmQ1e']));
    const call = only();
    expect(call.operation).toBe('invoke-with-response-stream');
    expect(call.json).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(call.json).not.toHaveProperty('stream');
    expect(call.json).not.toHaveProperty('model');
  });

  it('generateContentStream on gpt-oss: ConverseStream → thoughts, text, functionCall, usage with cache reads', async () => {
    fake.reply(() => ({ frames: converseFrames('bedrock-converse-stream.json'), delayMs: 1 }));
    const { chunks, error } = await drain(await ai.models.generateContentStream({ model: OSS, contents: 'Weather in Paris?', config: { tools: [{ functionDeclarations: [weatherDecl] }], thinkingConfig: { includeThoughts: true } } }));
    expect(error).toBeUndefined();
    expect(text(chunks, true)).toBe('User asks for Paris weather. Use get_weather.');
    expect(text(chunks)).toBe('Let me look that up.');
    expect(calls(chunks)).toEqual([{ id: 'tooluse_Q2bvxP3rT0yN8sLwE4mJcA', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(chunks.at(-1)!.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toEqual({ promptTokenCount: 176, candidatesTokenCount: 41, totalTokenCount: 217, cachedContentTokenCount: 80 });
    expect(only()).toMatchObject({ operation: 'converse-stream', auth: 'bearer' });
  });

  it('function calling round trip through a chat: Claude gets its thinking, signature and tool_use back with the result', async () => {
    fake.reply(json('bedrock-claude-tool-message.json'));
    const chat = ai.chats.create({ model: CLAUDE, config: { maxOutputTokens: 2048, tools: [{ functionDeclarations: [weatherDecl] }], thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } });
    const first = await chat.sendMessage({ message: 'Weather in Paris?' });
    expect(first.functionCalls).toEqual([{ id: 'toolu_bdrk_01T1x6pB8JrWzEv5yRkN', name: 'get_weather', args: { city: 'Paris' } }]);

    fake.reply(json('bedrock-claude-message.json'));
    const second = await chat.sendMessage({ message: [{ functionResponse: { name: 'get_weather', response: { output: '18°C, sunny' } } }] });
    expect(second.text).toBe('Hello from Bedrock.');
    expect(chat.getHistory()).toHaveLength(4);
    const replay = fake.calls[1]!.json;
    expect(replay.thinking).toEqual({ type: 'enabled', budget_tokens: 1024, display: 'summarized' });
    expect(replay.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: claudeToolMessage.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_bdrk_01T1x6pB8JrWzEv5yRkN', content: [{ type: 'text', text: '18°C, sunny' }] }] },
    ]);
  });

  it.each([
    ['Claude (InvokeModelWithResponseStream)', CLAUDE, () => [chunkFrame(loadJsonFixture<unknown[]>('contract/bedrock-claude-stream.json')[0]), chunkFrame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }), chunkFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Par' } })]],
    ['gpt-oss (ConverseStream)', OSS, () => [eventFrame('messageStart', { role: 'assistant' }), eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Par' } })]],
  ])('an exception frame mid-stream on %s → ApiError after the text so far', async (_label, model, head) => {
    fake.reply(() => ({ frames: [...head(), exceptionFrame('modelStreamErrorException', { message: 'The model stream broke off.', originalStatusCode: 500 })] }));
    const { chunks, error } = await drain(await ai.models.generateContentStream({ model, contents: 'Go', config: { maxOutputTokens: 64 } }));
    expect(text(chunks)).toBe('Par');
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBeGreaterThanOrEqual(500);
    expect((error as ApiError).message).toContain('The model stream broke off.');
  });

  it('a throttlingException frame on gpt-oss ConverseStream → ApiError 429', async () => {
    fake.reply(() => ({ frames: [eventFrame('messageStart', { role: 'assistant' }), exceptionFrame('throttlingException', { message: 'Too many tokens, please wait before trying again.' })] }));
    const { error } = await drain(await ai.models.generateContentStream({ model: OSS, contents: 'Go' }));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).message).toContain('RESOURCE_EXHAUSTED');
  });

  it.each([
    [CLAUDE, 'ThrottlingException', 429, 429, 'RESOURCE_EXHAUSTED'],
    [OSS, 'ValidationException', 400, 400, 'INVALID_ARGUMENT'],
    [OSS, 'ServiceUnavailableException', 503, 503, 'UNAVAILABLE'],
  ])('HTTP error on %s: %s (%i) → ApiError %i %s', async (model, type, status, clientStatus, grpcStatus) => {
    fake.reply(() => ({ error: { type, message: `Bedrock says ${type}`, status } }));
    const err = await ai.models.generateContent({ model, contents: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(clientStatus);
    expect((err as ApiError).message).toContain(grpcStatus);
  });
});

describe('gateway credentials Bedrock refuses', () => {
  const WRONG_SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYzWRONGSECRET';
  const WRONG_KEY_ID = 'ASIAQ3EGUXWRONGID9Z1';
  let bad: RunningGateway;
  beforeAll(async () => {
    bad = await startTestGateway(
      testConfig({
        providers: {
          'bad-secret': { type: 'bedrock', region: 'us-east-1', baseUrl: fake.url, ...AWS, secretAccessKey: WRONG_SECRET },
          'bad-key-id': { type: 'bedrock', region: 'us-east-1', baseUrl: fake.url, ...AWS, accessKeyId: WRONG_KEY_ID },
          'bad-region': { type: 'bedrock', region: 'eu-west-1', baseUrl: fake.url, ...AWS },
          'bad-api-key': { type: 'bedrock', region: 'us-east-1', baseUrl: fake.url, apiKey: 'ABSKd3JvbmctYmVkcm9jay1rZXk=' },
        },
        models: [
          { id: 'claude-bad-secret', routes: [{ provider: 'bad-secret', model: CLAUDE_ID }] },
          { id: 'oss-bad-secret', routes: [{ provider: 'bad-secret', model: OSS_ID }] },
          { id: 'oss-bad-key-id', routes: [{ provider: 'bad-key-id', model: OSS_ID }] },
          { id: 'claude-bad-region', routes: [{ provider: 'bad-region', model: CLAUDE_ID }] },
          { id: 'oss-bad-api-key', routes: [{ provider: 'bad-api-key', model: OSS_ID }] },
        ],
      }),
    );
  });
  afterAll(() => bad.close());

  const secrets = [AWS.secretAccessKey, WRONG_SECRET, AWS.accessKeyId, WRONG_KEY_ID, AWS.sessionToken, 'ABSKd3JvbmctYmVkcm9jay1rZXk=', 'Canonical', 'aws4_request'];
  const expectNoLeak = (message: string | undefined) => {
    for (const secret of secrets) expect(message).not.toContain(secret);
  };

  it.each([
    ['claude-bad-secret', /signature we calculated does not match/],
    ['claude-bad-region', /Credential should be scoped to/],
  ])('Claude-style create and stream on %s → 500 api_error naming the gateway credentials, nothing secret', async (model, reason) => {
    fake.reply(json('bedrock-claude-message.json'));
    const client = new Anthropic1({ apiKey: TEST_KEY, baseURL: `${bad.url}/api/anthropic`, maxRetries: 0 });
    const created = (await client.messages.create({ model: `acme.${model}`, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic1.APIError>;
    const streamed = (await client.messages.stream({ model: `acme.${model}`, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage().catch((e: unknown) => e)) as InstanceType<typeof Anthropic1.APIError>;
    for (const err of [created, streamed]) {
      expect(err.constructor.name).toBe('InternalServerError');
      expect(err.status).toBe(500);
      expect(err.error).toEqual({ type: 'error', error: { type: 'api_error', message: "Bedrock rejected the gateway's AWS credentials" }, request_id: expect.stringMatching(/^req_/) });
      expectNoLeak(err.message);
    }
    expect(fake.calls).toHaveLength(0);
    expect(fake.rejected).toHaveLength(2);
    for (const refusal of fake.rejected) expect(refusal).toMatch(reason);
  });

  it.each([['oss-bad-secret'], ['oss-bad-key-id'], ['oss-bad-api-key']])('@google/genai on %s → ApiError 500 INTERNAL, nothing secret', async (model) => {
    fake.reply(json('bedrock-converse-response.json'));
    const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: `${bad.url}/api/gemini` } });
    const err = (await genai.models.generateContent({ model: `acme.${model}`, contents: 'x' }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(500);
    expect(err.message).toContain('INTERNAL');
    expect(err.message).toContain('Bedrock rejected the gateway');
    expectNoLeak(err.message);
    expect(fake.calls).toHaveLength(0);
    expect(fake.rejected).toHaveLength(1);
  });
});

describe('client aborts reach Bedrock', () => {
  it.each([
    ['Claude (InvokeModelWithResponseStream, passed through)', CLAUDE, () => [chunkFrame(loadJsonFixture<unknown[]>('contract/bedrock-claude-stream.json')[0]), chunkFrame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }), chunkFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Par' } })]],
    ['gpt-oss (ConverseStream, translated)', OSS, () => [eventFrame('messageStart', { role: 'assistant' }), eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Par' } })]],
  ])('the Claude-style client aborting a hanging %s stream closes the Bedrock connection', async (_label, model, head) => {
    fake.reply(() => ({ frames: head(), hang: true }));
    const before = fake.aborts;
    const client = new Anthropic1({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
    const stream = client.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Tell me a long story' }] });
    const texts: string[] = [];
    stream.on('text', (t) => {
      texts.push(t);
      stream.abort();
    });
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(texts).toEqual(['Par']);
    expect((err as Error).constructor.name).toBe('APIUserAbortError');
    await fake.waitForAborts(before + 1, 3000);
    expect(fake.calls).toHaveLength(1);
  });
});
