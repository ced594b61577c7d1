/**
 * Pitfall 16 (LiteLLM #36168, #8349, #9657): streamed usage missing or wrong; cached tokens
 * vanished, so the same request cost ~4× when streamed. For one and the same answer, the usage a
 * client reads from a stream (input, output, cache read, cache write, in its family's own fields)
 * must equal what it reads from the non-streamed response.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { TEST_KEY } from '../helpers/gateway.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';

let up: FourUpstreams;
let deepseek: FakeUpstream;

// One answer, "Cached hello." with 10 fresh input tokens, 200 written to and 3000 read from the cache, 50 out.
const sse = (event: string, data: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
const ANTHROPIC_USAGE = { input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 3000, output_tokens: 50 };
const ANTHROPIC_MESSAGE = { id: 'msg_16', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: 'Cached hello.' }], stop_reason: 'end_turn', stop_sequence: null, usage: ANTHROPIC_USAGE };
const ANTHROPIC_STREAM = [
  sse('message_start', { message: { ...ANTHROPIC_MESSAGE, content: [], stop_reason: null, usage: { ...ANTHROPIC_USAGE, output_tokens: 1 } } }),
  sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  sse('ping', {}),
  sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Cached hello.' } }),
  sse('content_block_stop', { index: 0 }),
  sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 50 } }),
  sse('message_stop', {}),
];

const openaiAnswer = (usage: Record<string, unknown>) => ({
  json: { id: 'chatcmpl-16', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Cached hello.' }, finish_reason: 'stop' }], usage },
  chunks: [
    `data: ${JSON.stringify({ id: 'chatcmpl-16', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'Cached hello.' }, finish_reason: null }] })}\n\n`,
    `data: ${JSON.stringify({ id: 'chatcmpl-16', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    `data: ${JSON.stringify({ id: 'chatcmpl-16', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage })}\n\n`,
    'data: [DONE]\n\n',
  ],
});
/** OpenAI-style: prompt_tokens includes the cached part; a write count where the host reports one (OpenRouter). */
const OPENAI = openaiAnswer({ prompt_tokens: 3210, completion_tokens: 50, total_tokens: 3260, prompt_tokens_details: { cached_tokens: 3000, cache_write_tokens: 200 } });
/** DeepSeek reports its cache as prompt_cache_hit_tokens. */
const DEEPSEEK = openaiAnswer({ prompt_tokens: 3010, completion_tokens: 50, total_tokens: 3060, prompt_cache_hit_tokens: 3000, prompt_cache_miss_tokens: 10 });

const GEMINI_USAGE = { promptTokenCount: 3010, cachedContentTokenCount: 3000, candidatesTokenCount: 50, totalTokenCount: 3060 };
const geminiChunk = (text: string, usageMetadata: Record<string, number>, last = false) => ({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last && { finishReason: 'STOP' }) }], usageMetadata, modelVersion: 'gemini-2.5-pro', responseId: 'r16' });
const GEMINI_JSON = geminiChunk('Cached hello.', GEMINI_USAGE, true);
const GEMINI_STREAM = [geminiChunk('Cached ', { promptTokenCount: 3010, cachedContentTokenCount: 3000, totalTokenCount: 3010 }), geminiChunk('hello.', GEMINI_USAGE, true)].map((c) => `data: ${JSON.stringify(c)}\n\n`);

beforeAll(async () => {
  const streaming = (req: { json?: { stream?: boolean } }) => req.json?.stream === true;
  deepseek = await startFakeUpstream((req) => (streaming(req) ? { chunks: DEEPSEEK.chunks } : { body: DEEPSEEK.json }));
  up = await startFourUpstreams({
    claude: (req) => (streaming(req) ? { chunks: ANTHROPIC_STREAM } : { body: ANTHROPIC_MESSAGE }),
    oss: (req) => (streaming(req) ? { chunks: OPENAI.chunks } : { body: OPENAI.json }),
    google: (req) => (req.url.includes('alt=sse') ? { chunks: GEMINI_STREAM } : { body: GEMINI_JSON }),
    providers: { deepseek: { type: 'openai', baseUrl: `${deepseek.url}/v1`, apiKey: 'sk-ds' } },
    models: [
      { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] },
      { id: 'gpt-5', routes: [{ provider: 'oss', model: 'gpt-5' }] },
      { id: 'deepseek-v4', routes: [{ provider: 'deepseek', model: 'deepseek-chat' }] },
      { id: 'gemini-2.5-pro', routes: [{ provider: 'google', model: 'gemini-2.5-pro' }] },
    ],
  });
});
afterAll(async () => {
  await up.close();
  await deepseek.close();
});

const CLAUDE_STYLE = [
  ['Anthropic (fast path)', 'acme.claude-sonnet-4-6', ANTHROPIC_USAGE],
  ['OpenAI-compatible (cached_tokens + cache_write_tokens)', 'acme.gpt-5', ANTHROPIC_USAGE],
  ['DeepSeek (prompt_cache_hit_tokens)', 'acme.deepseek-v4', { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 3000, output_tokens: 50 }],
  ['Gemini (cachedContentTokenCount)', 'acme.gemini-2.5-pro', { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 3000, output_tokens: 50 }],
] as const;

describe.each(CLAUDE_STYLE)('pitfall 16: Claude-style client, %s', (_name, model, expected) => {
  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('SDK %s: stream().finalMessage().usage equals create().usage, cache fields included', async (_v, Client) => {
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    const params = { model, max_tokens: 100, messages: [{ role: 'user' as const, content: 'Hello' }] };
    const plain = await client.messages.create(params);
    const streamed = await client.messages.stream(params).finalMessage();
    expect(plain.usage).toMatchObject(expected);
    expect(streamed.usage).toEqual(plain.usage);
  });
});

const GEMINI_STYLE = [
  ['Anthropic (translated)', 'acme.claude-sonnet-4-6', { promptTokenCount: 3210, cachedContentTokenCount: 3000, candidatesTokenCount: 50, totalTokenCount: 3260 }],
  ['OpenAI-compatible', 'acme.gpt-5', { promptTokenCount: 3210, cachedContentTokenCount: 3000, candidatesTokenCount: 50, totalTokenCount: 3260 }],
] as const;

describe.each(GEMINI_STYLE)('pitfall 16: Gemini-style client, %s', (_name, model, expected) => {
  it('the last streamed usageMetadata equals the non-streamed one', async () => {
    const post = (action: string) =>
      fetch(`${up.gateway.url}/api/gemini/v1beta/models/${model}:${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] }),
      });
    const plain = (await (await post('generateContent')).json()).usageMetadata;
    const chunks = (await (await post('streamGenerateContent?alt=sse')).text()).split('\n\n').filter((c) => c.trim()).map((c) => JSON.parse(c.slice('data: '.length)));
    const streamed = chunks.filter((c) => c.usageMetadata).at(-1).usageMetadata;
    expect(plain).toEqual(expected);
    expect(streamed).toEqual(plain);
  });
});
