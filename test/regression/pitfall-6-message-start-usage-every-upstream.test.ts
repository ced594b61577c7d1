/**
 * Pitfall 6 (Portkey #1417, fixed by PR #1424): the Anthropic SDK against Bedrock through the
 * gateway's Messages route failed until message_start carried a usage object. Every upstream kind
 * behind the Claude-style route must open its stream with message_start.message.usage holding
 * numeric input_tokens and output_tokens, and end with the real counts.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkFrame, eventFrame } from '../helpers/bedrock-frames.ts';
import { TEST_KEY } from '../helpers/gateway.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';
import { postMessages } from './helpers/messages-wire.ts';

let up: FourUpstreams;

const sse = (event: string, data: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
const ANTHROPIC_EVENTS: Array<[string, Record<string, unknown>]> = [
  ['message_start', { message: { id: 'msg_6', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } }],
  ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi!' } }],
  ['content_block_stop', { index: 0 }],
  ['message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }],
  ['message_stop', {}],
];
const openaiChunk = (rest: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'chatcmpl-6', object: 'chat.completion.chunk', created: 1, model: 'oss', ...rest })}\n\n`;

beforeAll(async () => {
  up = await startFourUpstreams({
    claude: () => ({ chunks: ANTHROPIC_EVENTS.map(([e, d]) => sse(e, d)) }),
    oss: () => ({
      chunks: [
        openaiChunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi!' }, finish_reason: 'stop' }] }),
        openaiChunk({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }),
        'data: [DONE]\n\n',
      ],
    }),
    google: () => ({
      chunks: [
        `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hi!' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3, totalTokenCount: 15 }, modelVersion: 'gemini-2.5-flash', responseId: 'r6' })}\n\n`,
      ],
    }),
    aws: (call) =>
      call.operation === 'invoke-with-response-stream'
        ? { frames: ANTHROPIC_EVENTS.map(([type, data]) => chunkFrame({ type, ...data })) }
        : {
            frames: [
              eventFrame('messageStart', { role: 'assistant' }),
              eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi!' } }),
              eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
              eventFrame('messageStop', { stopReason: 'end_turn' }),
              eventFrame('metadata', { usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 }, metrics: { latencyMs: 90 } }),
            ],
          },
    models: [
      { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] },
      { id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
      { id: 'gemini-2.5-flash', routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
      { id: 'bedrock-claude', routes: [{ provider: 'aws', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      { id: 'nova-pro', routes: [{ provider: 'aws', model: 'us.amazon.nova-pro-v1:0' }] },
    ],
  });
});
afterAll(() => up.close());

const UPSTREAMS = [
  ['anthropic', 'acme.claude-sonnet-4-6'],
  ['openai-compatible', 'acme.gpt-oss-120b'],
  ['gemini', 'acme.gemini-2.5-flash'],
  ['bedrock (Claude, InvokeModel)', 'acme.bedrock-claude'],
  ['bedrock (Converse)', 'acme.nova-pro'],
] as const;

describe.each(UPSTREAMS)('pitfall 6: %s upstream behind the Claude-style route', (_kind, model) => {
  const body = { model, max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'Hi' }] };

  it('message_start carries a usage object with numeric input_tokens and output_tokens', async () => {
    const res = await postMessages(up.gateway.url, body);
    expect(res.status).toBe(200);
    const first = (await res.text()).split('\n\n')[0]!;
    expect(first.split('\n')[0]).toBe('event: message_start');
    const usage = JSON.parse(first.split('\n')[1]!.slice('data: '.length)).message.usage;
    expect(usage).toEqual(expect.objectContaining({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) }));
  });

  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('SDK %s: stream() resolves with the answer and the final counts', async (_v, Client) => {
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    const final = await client.messages.stream(body as never).finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hi!' })]);
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 3 });
  });
});
