/**
 * Pitfall 4 (LiteLLM #24176): a newer Claude Code broke because the bridge's events differed from
 * Anthropic's in detail: zeros or nothing in `message_start.usage`, usage put on `message_stop`.
 * Anthropic's grammar: message_start.message.usage with input_tokens and output_tokens,
 * message_delta.usage with (cumulative) output_tokens, message_stop with nothing but its type.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { parseSse, postMessages } from './helpers/messages-wire.ts';

let oss: FakeUpstream;
let google: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  oss = await startFakeUpstream();
  google = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: {
        oss: { type: 'openai', baseUrl: `${oss.url}/v1`, apiKey: 'sk-up' },
        google: { type: 'gemini', baseUrl: google.url, apiKey: 'g-up' },
      },
      models: [
        { id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
        { id: 'gemini-2.5-flash', routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
      ],
    }),
  );
  const openaiChunk = (rest: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'chatcmpl-4', object: 'chat.completion.chunk', created: 1, model: 'gpt-oss', ...rest })}\n\n`;
  oss.reply(() => ({
    chunks: [
      openaiChunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] }),
      openaiChunk({ choices: [{ index: 0, delta: { content: ' there' }, finish_reason: 'stop' }] }),
      openaiChunk({ choices: [], usage: { prompt_tokens: 31, completion_tokens: 7, total_tokens: 38 } }),
      'data: [DONE]\n\n',
    ],
  }));
  const geminiChunk = (text: string, usageMetadata: Record<string, number>, finishReason?: string) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finishReason && { finishReason }) }], usageMetadata, modelVersion: 'gemini-2.5-flash', responseId: 'resp-4' })}\n\n`;
  google.reply(() => ({
    chunks: [
      geminiChunk('Hello', { promptTokenCount: 31, totalTokenCount: 31 }),
      geminiChunk(' there', { promptTokenCount: 31, candidatesTokenCount: 7, totalTokenCount: 38 }, 'STOP'),
    ],
  }));
});
afterAll(async () => {
  await gateway.close();
  await oss.close();
  await google.close();
});

const MODELS = [
  ['OpenAI-compatible (usage only at the end)', 'acme.gpt-oss-120b', 0],
  ['Gemini (prompt count from the first chunk)', 'acme.gemini-2.5-flash', 31],
] as const;

describe.each(MODELS)('pitfall 4: %s', (_name, model, startInput) => {
  const body = { model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] };

  it('usage sits where Anthropic puts it: message_start and message_delta, never message_stop', async () => {
    const res = await postMessages(gateway.url, body);
    const events = parseSse(await res.text());
    const start = events[0]!;
    expect(start.event).toBe('message_start');
    expect(start.data.message.usage).toEqual({
      input_tokens: startInput,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    const delta = events.find((e) => e.event === 'message_delta')!;
    expect(delta.data.usage).toMatchObject({ output_tokens: 7, input_tokens: 31 });
    expect(events.at(-1)).toEqual({ event: 'message_stop', data: { type: 'message_stop' } });
    expect(events.filter((e) => e.event !== 'message_start' && e.event !== 'message_delta' && 'usage' in e.data)).toEqual([]);
  });

  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('SDK %s finalMessage().usage has the final counts', async (_v, Client) => {
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
    const final = await client.messages.stream(body as never).finalMessage();
    expect(final.usage).toEqual({ input_tokens: 31, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });
});
