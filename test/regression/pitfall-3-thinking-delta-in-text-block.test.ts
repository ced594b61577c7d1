/**
 * Pitfall 3 (LiteLLM #33224): a block opened as `text` receives `thinking_delta`, and Claude Code
 * aborts with "Content block is not a thinking block". Hosts interleave reasoning and content
 * freely (text, then reasoning, then text again): each run must get a block of its own type.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { parseSse, postMessages } from './helpers/messages-wire.ts';
import { startOneOpenAIHost, type OneOpenAIHost } from './helpers/one-openai-host.ts';

let up: OneOpenAIHost;

beforeAll(async () => {
  up = await startOneOpenAIHost('oss', 'kimi-k2', 'moonshot/kimi-k2-thinking');
});
afterAll(() => up.close());

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-3', object: 'chat.completion.chunk', created: 1, model: 'kimi', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** `field` is where the host puts reasoning: DeepSeek/vLLM `reasoning_content`, Groq/OpenRouter `reasoning`. */
const stream = (field: 'reasoning_content' | 'reasoning') => [
  chunk({ role: 'assistant', content: 'First, ' }),
  chunk({ content: 'an answer.' }),
  chunk({ content: null, [field]: 'Hmm, let me ' }),
  chunk({ content: '', [field]: 'double-check.' }),
  chunk({ content: 'Confirmed', [field]: null }),
  chunk({ content: ': 42.' }),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-3', object: 'chat.completion.chunk', created: 1, model: 'kimi', choices: [], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } })}\n\n`,
  'data: [DONE]\n\n',
];

const body = { model: 'acme.kimi-k2', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'What is 6*7?' }] };

const ALLOWED: Record<string, string[]> = { text: ['text_delta'], thinking: ['thinking_delta', 'signature_delta'] };

describe.each(['reasoning_content', 'reasoning'] as const)('pitfall 3: text → %s → text', (field) => {
  it('raw SSE: text, thinking and text blocks, each receiving only deltas of its own type', async () => {
    up.host.reply(() => ({ chunks: stream(field) }));
    const res = await postMessages(up.gateway.url, body);
    const events = parseSse(await res.text());
    const types: string[] = [];
    const misrouted: string[] = [];
    for (const { event, data } of events) {
      if (event === 'content_block_start') types[data.index] = data.content_block.type;
      if (event === 'content_block_delta' && !ALLOWED[types[data.index]!]?.includes(data.delta.type)) misrouted.push(`${data.delta.type} into ${types[data.index]} block ${data.index}`);
    }
    expect(misrouted).toEqual([]);
    expect(types).toEqual(['text', 'thinking', 'text']);
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => [e.data.index, e.data.delta.type, e.data.delta.text ?? e.data.delta.thinking ?? '(sig)']);
    expect(deltas).toEqual([
      [0, 'text_delta', 'First, '],
      [0, 'text_delta', 'an answer.'],
      [1, 'thinking_delta', 'Hmm, let me '],
      [1, 'thinking_delta', 'double-check.'],
      [1, 'signature_delta', '(sig)'],
      [2, 'text_delta', 'Confirmed'],
      [2, 'text_delta', ': 42.'],
    ]);
  });

  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('SDK %s finalMessage() keeps the three blocks apart', async (_v, Client) => {
    up.host.reply(() => ({ chunks: stream(field), delayMs: 1 }));
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    const final = await client.messages.stream(body as never).finalMessage();
    expect(final.content).toEqual([
      { type: 'text', text: 'First, an answer.' },
      { type: 'thinking', thinking: 'Hmm, let me double-check.', signature: expect.stringMatching(/^sy1\.openai\./) },
      { type: 'text', text: 'Confirmed: 42.' },
    ]);
  });
});
