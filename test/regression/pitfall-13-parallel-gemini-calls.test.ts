/**
 * Pitfall 13 (new-api PR #2701, #672, #2558): parallel Gemini function calls were all streamed
 * with index 0 (or none), so clients merged them into one call with garbled arguments. Each
 * Gemini functionCall must become its own tool call with its own index and id; and parallel calls
 * from another upstream must reach a Gemini-style client as separate functionCall parts.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { postMessages } from './helpers/messages-wire.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';

let up: FourUpstreams;

const gChunk = (parts: unknown[], last = false) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...(last && { finishReason: 'STOP' }) }], usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 15, totalTokenCount: 35 }, modelVersion: 'gemini-2.5-flash', responseId: 'resp13' })}\n\n`;
const fc = (name: string, args: Record<string, unknown>) => ({ functionCall: { name, args } });
const CALLS = [
  ['get_weather', { city: 'Paris' }],
  ['get_weather', { city: 'Rome' }],
  ['get_time', { tz: 'CET' }],
] as const;
/** Gemini 2.5: no call ids; two calls in one chunk, the third in the next. */
const GEMINI_STREAM = [gChunk([fc(...CALLS[0]), fc(...CALLS[1])]), gChunk([fc(...CALLS[2])], true)];

const oChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-13', object: 'chat.completion.chunk', created: 1, model: 'qwen', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const OPENAI_INTERLEAVED = [
  oChunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
  oChunk({ tool_calls: [{ index: 1, id: 'call_r', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
  oChunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
  oChunk({ tool_calls: [{ index: 1, function: { arguments: '"Rome"}' } }] }),
  oChunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
];

beforeAll(async () => {
  up = await startFourUpstreams({
    google: () => ({ chunks: GEMINI_STREAM }),
    oss: () => ({ chunks: OPENAI_INTERLEAVED }),
    models: [
      { id: 'gemini-2.5-flash', routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
      { id: 'qwen3', routes: [{ provider: 'oss', model: 'qwen3' }] },
    ],
  });
});
afterAll(() => up.close());

const tools = [
  { name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } },
  { name: 'get_time', input_schema: { type: 'object' as const, properties: { tz: { type: 'string' } } } },
];
const body = { model: 'acme.gemini-2.5-flash', max_tokens: 256, stream: true, tools, messages: [{ role: 'user', content: 'Weather in Paris and Rome, time in CET?' }] };

describe('pitfall 13: parallel Gemini calls → Claude-style client', () => {
  it('raw SSE: three tool_use blocks with indices 0, 1, 2, distinct ids, each with its own arguments', async () => {
    const res = await postMessages(up.gateway.url, body);
    const events = (await res.text()).split('\n\n').filter((b) => b.trim()).map((b) => JSON.parse(/^data: (.*)$/m.exec(b)![1]!));
    const starts = events.filter((e) => e.type === 'content_block_start');
    expect(starts.map((e) => [e.index, e.content_block.type, e.content_block.name])).toEqual([
      [0, 'tool_use', 'get_weather'],
      [1, 'tool_use', 'get_weather'],
      [2, 'tool_use', 'get_time'],
    ]);
    const ids = starts.map((e) => e.content_block.id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    const args = [0, 1, 2].map((i) => JSON.parse(events.filter((e) => e.type === 'content_block_delta' && e.index === i).map((e) => e.delta.partial_json).join('')));
    expect(args).toEqual(CALLS.map(([, a]) => a));
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
  });

  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('SDK %s finalMessage(): three separate calls', async (_v, Client) => {
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    const final = await client.messages.stream(body as never).finalMessage();
    expect(final.content.map((b) => [b.type, (b as { name: string }).name, (b as { input: unknown }).input])).toEqual(CALLS.map(([name, input]) => ['tool_use', name, input]));
  });
});

describe('pitfall 13: parallel calls from an OpenAI-compatible host → Gemini-style client', () => {
  it('interleaved tool-call fragments become two whole functionCall parts', async () => {
    const res = await fetch(`${up.gateway.url}/api/gemini/v1beta/models/acme.qwen3:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] }],
        tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] }],
      }),
    });
    const chunks = (await res.text()).split('\n\n').filter((b) => b.trim()).map((b) => JSON.parse(b.slice('data: '.length)));
    const calls = chunks.flatMap((c) => c.candidates[0].content.parts).filter((p: { functionCall?: unknown }) => p.functionCall).map((p: { functionCall: unknown }) => p.functionCall);
    expect(calls).toEqual([
      { id: 'call_p', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'call_r', name: 'get_weather', args: { city: 'Rome' } },
    ]);
  });
});
