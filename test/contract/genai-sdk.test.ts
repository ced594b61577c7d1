import { ApiError, GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, sseChunks, type FakeHandler, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { KEEP_OBJECT_BYTES } from '../../core/http/json-body.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { loadFixture, loadJsonFixture } from '../helpers/streams.ts';
import { readAnswerHeaderNames } from '../helpers/answer-headers.ts';

/**
 * The official @google/genai client against the Gemini-style front door, with three kinds of
 * model behind it (each a fake provider over real HTTP): Gemini itself (same-family fast path),
 * Claude on the Anthropic API and gpt-oss on an OpenAI-compatible host (both translated).
 */

const GEMINI = 'acme.gemini-flash';
const CLAUDE = 'acme.claude-sonnet-4-6';
const OSS = 'acme.gpt-oss-120b';
const GEMINI_UPSTREAM_KEY = 'gm-upstream-key';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const weatherDecl = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
} as const;
const weatherTools = [{ functionDeclarations: [weatherDecl] }] as never;
const weatherSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

let gemini: FakeUpstream;
let anthropic: FakeUpstream;
let oss: FakeUpstream;
let gateway: RunningGateway;
let ai: GoogleGenAI;

beforeAll(async () => {
  [gemini, anthropic, oss] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
  gateway = await startTestGateway(
    testConfig({
      providers: {
        gem: { type: 'gemini', baseUrl: gemini.url, apiKey: GEMINI_UPSTREAM_KEY },
        claude: { type: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant-upstream' },
        oss: { type: 'openai', baseUrl: `${oss.url}/v1`, apiKey: 'sk-oss-upstream', replayReasoning: true },
      },
      models: [
        { id: 'gemini-flash', routes: [{ provider: 'gem', model: 'gemini-2.5-flash' }] },
        { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6-20260101' }] },
        { id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
      ],
    }),
  );
  ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: `${gateway.url}/api/gemini` } });
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([gemini.close(), anthropic.close(), oss.close()]);
});
beforeEach(() => {
  for (const fake of [gemini, anthropic, oss]) {
    fake.requests.length = 0;
    fake.reply(() => ({ status: 500, body: { error: 'no reply set for this test' } }));
  }
});

const fixture = (name: string) => loadFixture(`contract/gemini-family/${name}`);
const jsonFixture = (name: string) => loadJsonFixture(`contract/gemini-family/${name}`);
const sse = (name: string): FakeReply => ({ chunks: sseChunks(fixture(name)), delayMs: 1 });
const json = (name: string): FakeReply => ({ body: jsonFixture(name) });
/** Answers successive requests with successive replies. */
const replies = (...queue: FakeReply[]): FakeHandler => () => queue.shift() ?? { status: 500, body: { error: 'reply queue empty' } };

async function drain(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function apiError(run: () => Promise<unknown>): Promise<ApiError> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/** What the SDK puts on the wire for a call, captured by pointing a second client straight at the fake Gemini. */
async function sdkBody(run: (direct: GoogleGenAI) => Promise<unknown>, reply: FakeReply): Promise<string> {
  const direct = new GoogleGenAI({ apiKey: 'direct-key', httpOptions: { baseUrl: gemini.url } });
  gemini.reply(() => reply);
  await run(direct);
  return gemini.requests.pop()!.body;
}

function expectUpstreamAuth(headers: Record<string, unknown>, name: string, value: string): void {
  expect(headers[name]).toBe(value);
  expect(JSON.stringify(headers)).not.toContain(TEST_KEY);
}

describe('Gemini model: the client body goes upstream untouched', () => {
  const request = {
    model: GEMINI,
    contents: 'What is the capital of France?',
    config: {
      systemInstruction: 'Be brief.',
      temperature: 0.2,
      maxOutputTokens: 512,
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    },
  } as const;
  const expectedBody = {
    contents: [{ parts: [{ text: 'What is the capital of France?' }], role: 'user' }],
    systemInstruction: { parts: [{ text: 'Be brief.' }], role: 'user' },
    safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    generationConfig: { temperature: 0.2, maxOutputTokens: 512, thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
  };

  it('generateContent: same bytes, upstream key, model in the URL, answer relayed', async () => {
    const direct = await sdkBody((c) => c.models.generateContent({ ...request, model: 'gemini-2.5-flash' } as never), json('gemini-text.json'));
    gemini.reply(() => json('gemini-text.json'));
    const response = await ai.models.generateContent(request as never);
    expect(response.text).toBe('Paris is the capital of France.');
    expect(response.candidates![0]!.content).toEqual(jsonFixture('gemini-text.json').candidates[0].content);
    expect(response.usageMetadata).toEqual(jsonFixture('gemini-text.json').usageMetadata);
    const seen = gemini.requests[0]!;
    expect(seen.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(seen.body).toBe(direct);
    expect(seen.json).toEqual(expectedBody);
    expectUpstreamAuth(seen.headers, 'x-goog-api-key', GEMINI_UPSTREAM_KEY);
  });

  it('a long context (past 64 KiB, non-ASCII) goes up as the same bytes: the gateway scans it, it does not re-serialise it', async () => {
    const long = { ...request, contents: `Résumé — 日本 🎉 ${'lorem ipsum dolor '.repeat(Math.ceil(KEEP_OBJECT_BYTES / 18))}` };
    const direct = await sdkBody((c) => c.models.generateContent({ ...long, model: 'gemini-2.5-flash' } as never), json('gemini-text.json'));
    gemini.reply(() => json('gemini-text.json'));
    const response = await ai.models.generateContent(long as never);
    expect(response.text).toBe('Paris is the capital of France.');
    const seen = gemini.requests[0]!;
    expect(seen.body.length).toBeGreaterThan(KEEP_OBJECT_BYTES);
    expect(seen.body).toBe(direct);
  });

  it('generateContentStream: SSE chunks arrive one by one from :streamGenerateContent?alt=sse', async () => {
    gemini.reply(() => sse('gemini-text.sse'));
    const chunks = await drain(await ai.models.generateContentStream(request as never));
    expect(chunks.map((c) => c.text)).toEqual(['The capital', ' of France is', ' Paris.']);
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 8, candidatesTokenCount: 7, thoughtsTokenCount: 25, totalTokenCount: 40 });
    const seen = gemini.requests[0]!;
    expect(seen.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(seen.json).toEqual(expectedBody);
    expectUpstreamAuth(seen.headers, 'x-goog-api-key', GEMINI_UPSTREAM_KEY);
  });

  it("a relayed answer keeps only the upstream's content type, streamed or not", async () => {
    const upstreamHeaders = loadJsonFixture<Record<string, string>>('gemini/upstream-response-headers.json');
    gemini.reply(() => ({ ...json('gemini-text.json'), headers: upstreamHeaders }));
    const response = await ai.models.generateContent(request as never);
    expect(response.text).toBe('Paris is the capital of France.');
    expect(readAnswerHeaderNames(response.sdkHttpResponse!.headers!)).toEqual(['content-type', 'request-id', 'x-request-id']);
    expect(response.sdkHttpResponse!.headers!['content-type']).toBe('application/json');

    gemini.reply(() => ({ ...sse('gemini-text.sse'), headers: upstreamHeaders }));
    const chunks = await drain(await ai.models.generateContentStream(request as never));
    expect(chunks.map((c) => c.text).join('')).toBe('The capital of France is Paris.');
    expect(readAnswerHeaderNames(chunks[0]!.sdkHttpResponse!.headers!)).toEqual(['cache-control', 'content-type', 'request-id', 'x-accel-buffering', 'x-request-id']);
    expect(chunks[0]!.sdkHttpResponse!.headers!['content-type']).toBe('text/event-stream');
  });

  it('chats: two streamed turns, the second request carries the first turn as the SDK stored it', async () => {
    gemini.reply(replies(sse('gemini-text.sse'), sse('gemini-followup.sse')));
    const chat = ai.chats.create({ model: GEMINI });
    const first = await drain(await chat.sendMessageStream({ message: 'What is the capital of France?' }));
    expect(first.map((c) => c.text).join('')).toBe('The capital of France is Paris.');
    const second = await drain(await chat.sendMessageStream({ message: 'How many people live there?' }));
    expect(second.map((c) => c.text).join('')).toBe('About 2.1 million people live there.');
    expect(gemini.requests[1]!.json.contents).toEqual([
      { role: 'user', parts: [{ text: 'What is the capital of France?' }] },
      { role: 'model', parts: [{ text: 'The capital' }] },
      { role: 'model', parts: [{ text: ' of France is' }] },
      { role: 'model', parts: [{ text: ' Paris.' }] },
      { role: 'user', parts: [{ text: 'How many people live there?' }] },
    ]);
    expect(chat.getHistory(true)).toHaveLength(7);
  });

  it('function calling without ids (Gemini 2.5): calls and results, with the thoughtSignature, go round untouched', async () => {
    gemini.reply(replies(json('gemini-function-call.json'), json('gemini-text.json')));
    const chat = ai.chats.create({ model: GEMINI, config: { tools: weatherTools } });
    const first = await chat.sendMessage({ message: 'Weather in Paris?' });
    expect(first.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    await chat.sendMessage({ message: [{ functionResponse: { name: 'get_weather', response: { output: { temp: 18, sky: 'sunny' } } } }] });
    const seen = gemini.requests[1]!;
    expect(seen.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(seen.json.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiwBVKhc7sig2A==' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: { temp: 18, sky: 'sunny' } } } }] },
    ]);
    expect(seen.json.tools).toEqual([{ functionDeclarations: [weatherDecl] }]);
  });

  it('function calling with ids (Gemini 3 style, streamed): ids come out and go back as sent', async () => {
    gemini.reply(replies(sse('gemini-3-parallel-calls.sse'), json('gemini-text.json')));
    const chat = ai.chats.create({ model: GEMINI, config: { tools: weatherTools } });
    const chunks = await drain(await chat.sendMessageStream({ message: 'Weather in Paris and London?' }));
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls).toEqual([
      { id: 'p8vx3k2a', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'q1mz7d4b', name: 'get_weather', args: { city: 'London' } },
    ]);
    const results = calls.map((c) => ({ functionResponse: { id: c.id, name: c.name, response: { output: `${c.args!.city}: 18C` } } }));
    await chat.sendMessage({ message: results });
    const contents = gemini.requests[1]!.json.contents as Content[];
    expect(contents.at(-2)).toEqual({
      role: 'model',
      parts: [
        { functionCall: { id: 'p8vx3k2a', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CscBAdHtim8sigA==' },
        { functionCall: { id: 'q1mz7d4b', name: 'get_weather', args: { city: 'London' } } },
      ],
    });
    expect(contents.at(-1)).toEqual({ role: 'user', parts: results });
  });

  it('countTokens is relayed to the upstream counter', async () => {
    gemini.reply(() => json('gemini-count-tokens.json'));
    const count = await ai.models.countTokens({ model: GEMINI, contents: 'How many tokens is this?' });
    expect(count.totalTokens).toBe(31);
    expect(count.sdkHttpResponse?.headers?.['x-switchyard-token-count']).toBe('upstream');
    const seen = gemini.requests[0]!;
    expect(seen.url).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    expect(seen.json).toEqual({ contents: [{ parts: [{ text: 'How many tokens is this?' }], role: 'user' }] });
    expectUpstreamAuth(seen.headers, 'x-goog-api-key', GEMINI_UPSTREAM_KEY);
  });

  it('inline images and thought parts pass through unchanged', async () => {
    gemini.reply(() => json('gemini-thinking-text.json'));
    const response = await ai.models.generateContent({
      model: GEMINI,
      contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG } }] }],
    });
    expect(gemini.requests[0]!.json.contents).toEqual([{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG } }] }]);
    // .text skips thought parts; the signature-only part stays where Gemini put it.
    expect(response.text).toBe('Paris is the capital of France.');
    expect(response.candidates![0]!.content!.parts).toEqual(jsonFixture('gemini-thinking-text.json').candidates[0].content.parts);
  });

  it('the JSON-array stream (no alt=sse) is relayed from the upstream array', async () => {
    gemini.reply(() => ({ headers: { 'content-type': 'application/json; charset=UTF-8' }, chunks: [fixture('gemini-text-array.json')] }));
    const res = await fetch(`${gateway.url}/api/gemini/v1beta/models/${GEMINI}:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }] }),
    });
    expect(res.status).toBe(200);
    expect(gemini.requests[0]!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    const array = JSON.parse(await res.text()) as GenerateContentResponse[];
    expect(array.map((c) => c.candidates![0]!.content!.parts![0]!.text)).toEqual(['The capital', ' of France is', ' Paris.']);
  });
});

describe('Claude model on the Anthropic API (translated)', () => {
  it('generateContent: Messages body upstream, Gemini response back', async () => {
    anthropic.reply(() => json('anthropic-text.json'));
    const response = await ai.models.generateContent({
      model: CLAUDE,
      contents: 'What is the capital of France?',
      config: { systemInstruction: 'Be brief.', temperature: 0.2, maxOutputTokens: 256, stopSequences: ['END'] },
    });
    expect(response.text).toBe('Paris is the capital of France.');
    expect(response.candidates).toEqual([{ content: { parts: [{ text: 'Paris is the capital of France.' }], role: 'model' }, finishReason: 'STOP', index: 0 }]);
    expect(response.usageMetadata).toEqual({ promptTokenCount: 14, candidatesTokenCount: 9, totalTokenCount: 23 });
    expect(response.modelVersion).toBe(CLAUDE);
    expect(response.responseId).toBe('msg_01Hq3yYdJ7cW2kRkX8Tn5aBc');
    const seen = anthropic.requests[0]!;
    expect(seen.url).toBe('/v1/messages');
    expect(seen.json).toEqual({
      model: 'claude-sonnet-4-6-20260101',
      max_tokens: 256,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] }],
      stop_sequences: ['END'],
      temperature: 0.2,
    });
    expectUpstreamAuth(seen.headers, 'x-api-key', 'sk-ant-upstream');
  });

  it('generateContentStream: text deltas become chunks; the last one ends the turn', async () => {
    anthropic.reply(() => sse('anthropic-text.sse'));
    const chunks = await drain(await ai.models.generateContentStream({ model: CLAUDE, contents: 'Capital of France?', config: { maxOutputTokens: 100 } }));
    expect(chunks.map((c) => c.text).join('')).toBe('The capital of France is Paris.');
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toEqual({ promptTokenCount: 14, candidatesTokenCount: 9, totalTokenCount: 23 });
    expect(anthropic.requests[0]!.json).toMatchObject({ stream: true, max_tokens: 100 });
  });

  it('chats: the second streamed turn sends the first one as an assistant message', async () => {
    anthropic.reply(replies(sse('anthropic-text.sse'), sse('anthropic-followup.sse')));
    const chat = ai.chats.create({ model: CLAUDE });
    await drain(await chat.sendMessageStream({ message: 'What is the capital of France?' }));
    const second = await drain(await chat.sendMessageStream({ message: 'How many people live there?' }));
    expect(second.map((c) => c.text).join('')).toBe('About 2.1 million people live there.');
    expect(anthropic.requests[1]!.json.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'The capital of France is Paris.' }] },
      { role: 'user', content: [{ type: 'text', text: 'How many people live there?' }] },
    ]);
    // Every streamed chunk was valid for the SDK: nothing was dropped from the curated history.
    expect(chat.getHistory(true)).toEqual(chat.getHistory(false));
    expect(chat.getHistory(true)).toHaveLength(9);
  });

  it.each([
    ['without ids (matched by name and order)', false],
    ['with ids, answered in reverse order', true],
  ])('function calling %s: tool_result carries the tool_use id', async (_name, withIds) => {
    anthropic.reply(replies(json('anthropic-tool-use.json'), json('anthropic-text.json')));
    const chat = ai.chats.create({ model: CLAUDE, config: { tools: weatherTools } });
    const first = await chat.sendMessage({ message: 'Weather in Paris and London?' });
    expect(first.functionCalls).toEqual([
      { id: 'toolu_01A9xKq2', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'toolu_01B7mZp4', name: 'get_weather', args: { city: 'London' } },
    ]);
    expect(first.candidates![0]!.content!.parts![0]).toEqual({ text: "I'll check both cities." });
    expect(anthropic.requests[0]!.json.tools).toEqual([{ name: 'get_weather', description: 'Current weather for a city', input_schema: weatherSchema }]);
    const results = first.functionCalls!.map((c) => ({
      functionResponse: { ...(withIds ? { id: c.id } : {}), name: c.name, response: { output: { city: c.args!.city, temp: c.args!.city === 'Paris' ? 18 : 12 } } },
    }));
    await chat.sendMessage({ message: withIds ? results.reverse() : results });
    const messages = anthropic.requests[1]!.json.messages;
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: "I'll check both cities." },
        { type: 'tool_use', id: 'toolu_01A9xKq2', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_01B7mZp4', name: 'get_weather', input: { city: 'London' } },
      ],
    });
    const paris = { type: 'tool_result', tool_use_id: 'toolu_01A9xKq2', content: [{ type: 'text', text: '{"city":"Paris","temp":18}' }] };
    const london = { type: 'tool_result', tool_use_id: 'toolu_01B7mZp4', content: [{ type: 'text', text: '{"city":"London","temp":12}' }] };
    expect(messages[2]).toEqual({ role: 'user', content: withIds ? [london, paris] : [paris, london] });
    expect(messages).toHaveLength(3);
  });

  it('countTokens uses the Anthropic counter', async () => {
    anthropic.reply(() => ({ body: { input_tokens: 77 } }));
    const count = await ai.models.countTokens({ model: CLAUDE, contents: 'How many tokens is this?' });
    expect(count.totalTokens).toBe(77);
    expect(count.sdkHttpResponse?.headers?.['x-switchyard-token-count']).toBe('upstream');
    expect(anthropic.requests[0]!.url).toBe('/v1/messages/count_tokens');
    expect(anthropic.requests[0]!.json).toEqual({
      model: 'claude-sonnet-4-6-20260101',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'How many tokens is this?' }] }],
    });
  });

  it('an inline image becomes an Anthropic base64 image block', async () => {
    anthropic.reply(() => json('anthropic-text.json'));
    await ai.models.generateContent({
      model: CLAUDE,
      contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG } }] }],
    });
    expect(anthropic.requests[0]!.json.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ]);
  });

  it('thinking: thought parts with a signature that brings the exact Claude thinking block back', async () => {
    anthropic.reply(replies(json('anthropic-thinking.json'), json('anthropic-text.json')));
    const config = { maxOutputTokens: 4096, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } };
    const chat = ai.chats.create({ model: CLAUDE, config });
    const first = await chat.sendMessage({ message: 'Capital of France?' });
    expect(first.text).toBe('Paris.');
    const parts = first.candidates![0]!.content!.parts!;
    expect(parts[0]).toEqual({ text: 'The user asks for the capital of France. That is Paris.', thought: true });
    expect(parts[1]).toMatchObject({ text: 'Paris.', thoughtSignature: expect.stringMatching(/^sy1\.anthropic\./) });
    expect(anthropic.requests[0]!.json.thinking).toMatchObject({ type: 'enabled', budget_tokens: 2048 });

    await chat.sendMessage({ message: 'And of Italy?' });
    expect(anthropic.requests[1]!.json.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user asks for the capital of France. That is Paris.', signature: 'EqQBCkYIBxgCKkBsgR2Lw9pQx+f/zT0==' },
        { type: 'text', text: 'Paris.' },
      ],
    });
  });

  it('thinking + tool use over a streamed chat: the tool_result turn replays the signed thinking block', async () => {
    anthropic.reply(replies(sse('anthropic-thinking-tool.sse'), sse('anthropic-text.sse')));
    const config = { tools: weatherTools, maxOutputTokens: 4096, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } };
    const chat = ai.chats.create({ model: CLAUDE, config });
    const chunks = await drain(await chat.sendMessageStream({ message: 'Weather in Paris?' }));
    const thoughts = chunks.flatMap((c) => c.candidates![0]!.content!.parts!.filter((p) => p.thought).map((p) => p.text));
    expect(thoughts.join('')).toBe('Need the weather. Call get_weather.');
    const calls = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls).toEqual([{ id: 'toolu_01Wx8Ff3', name: 'get_weather', args: { city: 'Paris' } }]);

    await drain(await chat.sendMessageStream({ message: [{ functionResponse: { name: 'get_weather', response: { output: '18°C, sunny' } } }] }));
    expect(anthropic.requests[1]!.json.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Need the weather. Call get_weather.', signature: 'ErUBCkYIBxgCIkB3mT9+qZ/xK2vLwPa8==' },
          { type: 'tool_use', id: 'toolu_01Wx8Ff3', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Wx8Ff3', content: [{ type: 'text', text: '18°C, sunny' }] }] },
    ]);
    expect(anthropic.requests[1]!.json.thinking).toMatchObject({ type: 'enabled', budget_tokens: 2048 });
  });

  it('the JSON-array stream (no alt=sse) is written by the gateway', async () => {
    anthropic.reply(() => sse('anthropic-text.sse'));
    const res = await fetch(`${gateway.url}/api/gemini/v1beta/models/${CLAUDE}:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }] }),
    });
    expect(res.headers.get('content-type')).toContain('application/json');
    const array = JSON.parse(await res.text()) as GenerateContentResponse[];
    expect(array.map((c) => c.candidates![0]!.content!.parts!.map((p) => p.text).join('')).join('')).toBe('The capital of France is Paris.');
    expect(array.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { totalTokenCount: 23 }, modelVersion: CLAUDE });
    expect(anthropic.requests[0]!.json.stream).toBe(true);
  });

  it('in the JSON-array stream a mid-stream error becomes the last element', async () => {
    anthropic.reply(() => sse('anthropic-overloaded.sse'));
    const res = await fetch(`${gateway.url}/api/gemini/v1beta/models/${CLAUDE}:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Tell me a story' }] }] }),
    });
    const array = JSON.parse(await res.text()) as Array<GenerateContentResponse & { error?: unknown }>;
    expect(array[0]!.candidates![0]!.content!.parts).toEqual([{ text: 'Once upon' }]);
    expect(array.at(-1)).toEqual({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } });
  });

  // Gemini CLI's web search: generateContent with only {googleSearch: {}}, then the answer's
  // text with the grounding's sources numbered and markers put at each support's endIndex.
  const UEFA = { uri: 'https://www.uefa.com/euro2024/news/spain-champions', title: 'Spain crowned EURO 2024 champions | UEFA EURO 2024' };
  const BBC = { uri: 'https://www.bbc.co.uk/sport/football/euro-2024-final', title: 'Spain 2-1 England: Euro 2024 final – BBC Sport' };

  it('googleSearch is Claude\'s web search; its blocks and citations come back as groundingMetadata, supports at UTF-8 byte offsets of the text', async () => {
    anthropic.reply(() => json('anthropic-web-search.json'));
    const response = await ai.models.generateContent({ model: CLAUDE, contents: 'who won euro 2024', config: { tools: [{ googleSearch: {} }] } });
    expect(anthropic.requests[0]!.json.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    const text = "I'll search for the Euro 2024 final.Spain won Euro 2024, beating England 2–1 in the final in Berlin.";
    expect(response.text).toBe(text);
    const grounding = response.candidates![0]!.groundingMetadata!;
    expect(grounding).toEqual({
      webSearchQueries: ['euro 2024 final winner'],
      groundingChunks: [{ web: UEFA }, { web: BBC }],
      groundingSupports: [
        { segment: { startIndex: 36, endIndex: 55, text: 'Spain won Euro 2024' }, groundingChunkIndices: [0] },
        { segment: { startIndex: 55, endIndex: 101, text: ', beating England 2–1 in the final in Berlin' }, groundingChunkIndices: [1] },
      ],
    });
    // Each segment is where its text lies in the answer's bytes (the en dash is three).
    const bytes = new TextEncoder().encode(text);
    for (const { segment } of grounding.groundingSupports!) expect(new TextDecoder().decode(bytes.subarray(segment!.startIndex ?? 0, segment!.endIndex))).toBe(segment!.text);
  });

  it('googleSearch streamed: the queries and pages on the last chunk (a stream\'s citations are not read, so no supports)', async () => {
    anthropic.reply(() => sse('anthropic-web-search.sse'));
    const chunks = await drain(await ai.models.generateContentStream({ model: CLAUDE, contents: 'who won euro 2024', config: { tools: [{ googleSearch: {} }] } }));
    expect(chunks.map((c) => c.text ?? '').join('')).toBe("I'll search for the Euro 2024 final.Spain won Euro 2024, beating England 2–1 in the final in Berlin.");
    expect(chunks.slice(0, -1).every((c) => c.candidates![0]!.groundingMetadata === undefined)).toBe(true);
    expect(chunks.at(-1)!.candidates![0]).toMatchObject({ finishReason: 'STOP', groundingMetadata: { webSearchQueries: ['euro 2024 final winner'], groundingChunks: [{ web: UEFA }, { web: BBC }] } });
    expect(chunks.at(-1)!.candidates![0]!.groundingMetadata).not.toHaveProperty('groundingSupports');
  });

  it('a googleSearch option Claude\'s search cannot apply is refused, naming it', async () => {
    const err = await apiError(() =>
      ai.models.generateContent({ model: CLAUDE, contents: 'who won euro 2024', config: { tools: [{ googleSearch: { timeRangeFilter: { startTime: '2024-07-01T00:00:00Z', endTime: '2024-07-31T00:00:00Z' } } }] } }),
    );
    expect(err.status).toBe(400);
    expect(JSON.parse(err.message)).toEqual({ error: { code: 400, message: "tools.0.googleSearch.timeRangeFilter: Claude's web search has no such option", status: 'INVALID_ARGUMENT' } });
    expect(anthropic.requests).toHaveLength(0);
  });
});

describe('gpt-oss on an OpenAI-compatible host (translated)', () => {
  it('generateContent: chat-completions body upstream, Gemini response back', async () => {
    oss.reply(() => json('openai-text.json'));
    const response = await ai.models.generateContent({
      model: OSS,
      contents: 'What is the capital of France?',
      config: { systemInstruction: 'Be brief.', temperature: 0.2, maxOutputTokens: 256, seed: 7 },
    });
    expect(response.text).toBe('Paris is the capital of France.');
    expect(response.candidates![0]!.finishReason).toBe('STOP');
    expect(response.usageMetadata).toEqual({ promptTokenCount: 20, candidatesTokenCount: 8, totalTokenCount: 28 });
    const seen = oss.requests[0]!;
    expect(seen.url).toBe('/v1/chat/completions');
    expect(seen.json).toEqual({
      model: 'openai/gpt-oss-120b',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      max_tokens: 256,
      temperature: 0.2,
      seed: 7,
    });
    expectUpstreamAuth(seen.headers, 'authorization', 'Bearer sk-oss-upstream');
  });

  it('generateContentStream asks for usage and streams the text', async () => {
    oss.reply(() => sse('openai-text.sse'));
    const chunks = await drain(await ai.models.generateContentStream({ model: OSS, contents: 'Capital of France?' }));
    expect(chunks.map((c) => c.text).join('')).toBe('The capital of France is Paris.');
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata).toEqual({ promptTokenCount: 20, candidatesTokenCount: 8, totalTokenCount: 28 });
    expect(oss.requests[0]!.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('chats: the second streamed turn sends the first one as an assistant message', async () => {
    oss.reply(replies(sse('openai-text.sse'), sse('openai-followup.sse')));
    const chat = ai.chats.create({ model: OSS });
    await drain(await chat.sendMessageStream({ message: 'What is the capital of France?' }));
    const second = await drain(await chat.sendMessageStream({ message: 'How many people live there?' }));
    expect(second.map((c) => c.text).join('')).toBe('About 2.1 million people live there.');
    expect(oss.requests[1]!.json.messages).toEqual([
      { role: 'user', content: 'What is the capital of France?' },
      { role: 'assistant', content: 'The capital of France is Paris.' },
      { role: 'user', content: 'How many people live there?' },
    ]);
    expect(chat.getHistory(true)).toEqual(chat.getHistory(false));
    expect(chat.getHistory(true)).toHaveLength(9);
  });

  it('function calling: the functionResponse becomes a tool message with the same tool_call_id; reasoning rides back', async () => {
    oss.reply(replies(json('openai-tool-call.json'), json('openai-text.json')));
    const chat = ai.chats.create({ model: OSS, config: { tools: weatherTools } });
    const first = await chat.sendMessage({ message: 'Weather in Paris?' });
    expect(first.functionCalls).toEqual([{ id: 'call_Xq81bTz2', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(first.candidates![0]!.content!.parts![0]).toEqual({ text: 'The user wants the weather in Paris; call the tool.', thought: true });
    expect(oss.requests[0]!.json.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: weatherSchema } }]);

    await chat.sendMessage({ message: [{ functionResponse: { name: 'get_weather', response: { output: { temp: 18, sky: 'sunny' } } } }] });
    expect(oss.requests[1]!.json.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'The user wants the weather in Paris; call the tool.',
        tool_calls: [{ id: 'call_Xq81bTz2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_Xq81bTz2', content: '{"temp":18,"sky":"sunny"}' },
    ]);
  });

  it('a streamed tool call arrives whole in one chunk; the streamed chat sends the result back as a tool message', async () => {
    oss.reply(replies(sse('openai-tool-call.sse'), sse('openai-text.sse')));
    const chat = ai.chats.create({ model: OSS, config: { tools: weatherTools } });
    const chunks = await drain(await chat.sendMessageStream({ message: 'Weather in Paris?' }));
    const callChunks = chunks.filter((c) => c.functionCalls?.length);
    expect(callChunks).toHaveLength(1);
    expect(callChunks[0]!.functionCalls).toEqual([{ id: 'call_Rw52kLm9', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(chunks.at(-1)!.usageMetadata).toEqual({ promptTokenCount: 150, candidatesTokenCount: 18, thoughtsTokenCount: 6, totalTokenCount: 174 });

    await drain(await chat.sendMessageStream({ message: [{ functionResponse: { id: 'call_Rw52kLm9', name: 'get_weather', response: { output: '18°C' } } }] }));
    const messages = oss.requests[1]!.json.messages;
    expect(messages[1]).toMatchObject({ role: 'assistant', reasoning_content: 'Need the weather.', tool_calls: [{ id: 'call_Rw52kLm9', type: 'function', function: { name: 'get_weather' } }] });
    expect(JSON.parse(messages[1].tool_calls[0].function.arguments)).toEqual({ city: 'Paris' });
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_Rw52kLm9', content: '18°C' });
    expect(messages).toHaveLength(3);
  });

  it('countTokens is an estimate, marked as such, with no upstream call', async () => {
    const count = await ai.models.countTokens({ model: OSS, contents: 'How many tokens is this sentence, roughly?' });
    expect(count.totalTokens).toBeGreaterThan(0);
    expect(count.sdkHttpResponse?.headers?.['x-switchyard-token-count']).toBe('estimate');
    expect(oss.requests).toHaveLength(0);
  });

  it('an inline image becomes an image_url data URL', async () => {
    oss.reply(() => json('openai-text.json'));
    await ai.models.generateContent({
      model: OSS,
      contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG } }] }],
    });
    expect(oss.requests[0]!.json.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it('the JSON-array stream (no alt=sse) is written by the gateway', async () => {
    oss.reply(() => sse('openai-text.sse'));
    const res = await fetch(`${gateway.url}/api/gemini/v1beta/models/${OSS}:streamGenerateContent?alt=json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'Capital of France?' }] }] }),
    });
    const array = JSON.parse(await res.text()) as GenerateContentResponse[];
    expect(array.map((c) => c.candidates![0]!.content!.parts!.map((p) => p.text).join('')).join('')).toBe('The capital of France is Paris.');
    expect(array.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { totalTokenCount: 28 } });
  });
});

describe('errors arrive as ApiError with the status', () => {
  const geminiError = (status: number): unknown => {
    const names: Record<number, string> = { 400: 'INVALID_ARGUMENT', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };
    return { error: { code: status, message: `upstream says ${names[status]}`, status: names[status] } };
  };
  const anthropicError = (status: number): unknown => {
    const types: Record<number, string> = { 400: 'invalid_request_error', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error', 500: 'api_error', 503: 'overloaded_error' };
    return { type: 'error', error: { type: types[status], message: `upstream says ${types[status]}` } };
  };
  const openaiError = (status: number): unknown => ({ error: { message: `upstream says ${status}`, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: null } });
  const kinds = [
    ['Gemini', GEMINI, () => gemini, geminiError],
    ['Claude', CLAUDE, () => anthropic, anthropicError],
    ['gpt-oss', OSS, () => oss, openaiError],
  ] as const;
  const cases = kinds.flatMap(([name, model, fake, body]) => [400, 403, 404, 429, 500, 503].map((status) => [name, status, model, fake, body] as const));

  it.each(cases)('%s: upstream %i → ApiError with that status', async (_name, status, model, fake, body) => {
    fake().reply(() => ({ status, body: body(status) }));
    const err = await apiError(() => ai.models.generateContent({ model, contents: 'x' }));
    expect(err.status).toBe(status);
    expect(err.message).toContain(`"code":${status}`);
    expect(fake().requests).toHaveLength(1);
  });

  it.each([
    ['Gemini', GEMINI, () => gemini, { status: 429, body: { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }] } } }],
    ['Claude', CLAUDE, () => anthropic, { status: 429, headers: { 'retry-after': '7' }, body: anthropicError(429) }],
    ['gpt-oss', OSS, () => oss, { status: 429, headers: { 'retry-after-ms': '6500' }, body: openaiError(429) }],
  ] as const)('%s: a rate limit with a known wait reaches the client as Google says it, a RetryInfo in details', async (_name, model, fake, reply) => {
    fake().reply(() => reply);
    const err = await apiError(() => ai.models.generateContent({ model, contents: 'x' }));
    expect(err.status).toBe(429);
    const body = JSON.parse(err.message.slice(err.message.indexOf('{'))) as { error: { status: string; details?: unknown } };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }]);
  });

  it('fast path: only the output cap is checked here; the rest of the body is the upstream\'s to refuse', async () => {
    const cap = await apiError(() => ai.models.generateContent({ model: GEMINI, contents: 'x', config: { maxOutputTokens: 0 } }));
    expect([cap.status, cap.message]).toEqual([400, expect.stringContaining('generationConfig.maxOutputTokens: must be at least 1')]);
    expect(gemini.requests).toHaveLength(0);
    // The SDK refuses empty contents itself, so these go as raw HTTP.
    const post = (model: string) =>
      fetch(`${gateway.url}/api/gemini/v1beta/models/${model}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' }, body: '{"contents":[]}' });
    gemini.reply(() => ({ status: 400, body: geminiError(400) }));
    const relayed = await post(GEMINI);
    expect([relayed.status, ((await relayed.json()) as { error: { status: string } }).error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(gemini.requests).toHaveLength(1);
    const translated = await post(CLAUDE);
    expect([translated.status, ((await translated.json()) as { error: { message: string } }).error.message]).toEqual([400, expect.stringContaining('contents: must not be empty')]);
    expect(anthropic.requests).toHaveLength(0);
  });

  it('Claude 529 overloaded → 503 UNAVAILABLE', async () => {
    anthropic.reply(() => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }));
    const err = await apiError(() => ai.models.generateContent({ model: CLAUDE, contents: 'x' }));
    expect(err.status).toBe(503);
    expect(err.message).toContain('UNAVAILABLE');
  });

  it('a wrong gateway key is a 401 and reaches no upstream', async () => {
    const bad = new GoogleGenAI({ apiKey: 'sk-wrong-key', httpOptions: { baseUrl: `${gateway.url}/api/gemini` } });
    const err = await apiError(() => bad.models.generateContent({ model: GEMINI, contents: 'x' }));
    expect(err.status).toBe(401);
    expect(gemini.requests).toHaveLength(0);
  });

  it('an unknown model is a 404 naming it', async () => {
    const err = await apiError(() => ai.models.generateContent({ model: 'acme.no-such-model', contents: 'x' }));
    expect(err.status).toBe(404);
    expect(err.message).toContain('no-such-model');
    expect(err.message).toContain('NOT_FOUND');
  });

  it.each([
    ['Gemini', GEMINI, () => gemini, 'gemini-error-midstream.sse', 503],
    ['Claude', CLAUDE, () => anthropic, 'anthropic-overloaded.sse', 503],
    ['gpt-oss', OSS, () => oss, 'openai-error-midstream.sse', 502],
  ] as const)('%s: a mid-stream error is thrown while iterating, after the text before it', async (_name, model, fake, name, status) => {
    fake().reply(() => sse(name));
    const seen: string[] = [];
    const err = await apiError(async () => {
      for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Tell me a story' })) seen.push(chunk.text ?? '');
    });
    expect(seen.join('')).toBe('Once upon');
    expect(err.status).toBe(status);
  });
});
