/**
 * Pitfall 11 (CCR #1367, #493): gpt-oss through coding-agent routers. Groq rejects the `reasoning`
 * request property routers inject, and it returns reasoning in `message.reasoning` /
 * `delta.reasoning` (not `reasoning_content`), which routers ignored, so nothing visible came back.
 * A Groq-style provider must get no `reasoning` (or other invented reasoning fields) in its
 * request, only `reasoning_effort`, and its `reasoning` must surface as thinking.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

let groq: FakeUpstream;
let gateway: RunningGateway;

const chunk = (rest: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'chatcmpl-g', object: 'chat.completion.chunk', created: 1, model: 'openai/gpt-oss-120b', system_fingerprint: 'fp_1', ...rest })}\n\n`;
/** Groq's stream: reasoning in `delta.reasoning`, usage in `x_groq.usage` on the last chunk. */
const GROQ_STREAM = [
  chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] }),
  chunk({ choices: [{ index: 0, delta: { reasoning: 'Simple arithmetic.' }, logprobs: null, finish_reason: null }] }),
  chunk({ choices: [{ index: 0, delta: { content: '4' }, logprobs: null, finish_reason: null }] }),
  chunk({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], x_groq: { id: 'req_01', usage: { prompt_tokens: 80, completion_tokens: 12, total_tokens: 92 } } }),
  'data: [DONE]\n\n',
];
const GROQ_MESSAGE = {
  id: 'chatcmpl-g',
  object: 'chat.completion',
  created: 1,
  model: 'openai/gpt-oss-120b',
  choices: [{ index: 0, message: { role: 'assistant', content: '4', reasoning: 'Simple arithmetic.' }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 80, completion_tokens: 12, total_tokens: 92 },
};

beforeAll(async () => {
  groq = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: { groq: { type: 'openai', baseUrl: `${groq.url}/openai/v1`, apiKey: 'gsk-up', reasoningField: 'reasoning' } },
      models: [{ id: 'gpt-oss-120b', routes: [{ provider: 'groq', model: 'openai/gpt-oss-120b' }] }],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await groq.close();
});
beforeEach(() => {
  groq.requests.length = 0;
});

const client = () => new Anthropic1({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
/** A Claude Code-like request: thinking on, and an earlier turn (from this host) whose thinking is replayed. */
const request = (signature: string) => ({
  model: 'acme.gpt-oss-120b',
  max_tokens: 2048,
  thinking: { type: 'enabled' as const, budget_tokens: 10000 },
  messages: [
    { role: 'user' as const, content: 'What is 1+1?' },
    { role: 'assistant' as const, content: [{ type: 'thinking' as const, thinking: 'Easy.', signature }, { type: 'text' as const, text: '2' }] },
    { role: 'user' as const, content: 'And 2+2?' },
  ],
});

describe('pitfall 11: Groq-style gpt-oss host (reasoningField "reasoning", no replay)', () => {
  it('streamed: reasoning from delta.reasoning becomes thinking; usage from x_groq; the request has no injected reasoning property', async () => {
    groq.reply(() => ({ chunks: GROQ_STREAM }));
    const final = await client().messages.stream(request('sy1.openai.r0') as never).finalMessage();
    expect(final.content).toEqual([
      { type: 'thinking', thinking: 'Simple arithmetic.', signature: expect.stringMatching(/^sy1\.openai\./) },
      { type: 'text', text: '4' },
    ]);
    expect(final.usage).toMatchObject({ input_tokens: 80, output_tokens: 12 });

    const sent = groq.requests[0]!;
    expect(sent.url).toBe('/openai/v1/chat/completions');
    expect(sent.json).toEqual({
      model: 'openai/gpt-oss-120b',
      max_tokens: 2048,
      reasoning_effort: 'high',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'user', content: 'What is 1+1?' },
        { role: 'assistant', content: '2' },
        { role: 'user', content: 'And 2+2?' },
      ],
    });
  });

  it('non-streamed: message.reasoning becomes a thinking block before the text', async () => {
    groq.reply(() => ({ body: GROQ_MESSAGE }));
    const message = await client().messages.create(request('sy1.openai.r0') as never);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Simple arithmetic.', signature: expect.stringMatching(/^sy1\.openai\./) },
      { type: 'text', text: '4', citations: null },
    ]);
    for (const key of ['reasoning', 'reasoning_format', 'include_reasoning', 'thinking']) expect(groq.requests[0]!.json).not.toHaveProperty(key);
  });

  it('even reasoning this host produced, replayed unchanged, is not sent back (Groq rejects it)', async () => {
    groq.reply(() => ({ body: GROQ_MESSAGE }));
    const first = await client().messages.create({ model: 'acme.gpt-oss-120b', max_tokens: 256, messages: [{ role: 'user', content: 'What is 2+2?' }] });
    groq.reply(() => ({ body: GROQ_MESSAGE }));
    await client().messages.create({
      model: 'acme.gpt-oss-120b',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'What is 2+2?' }, { role: 'assistant', content: first.content as never }, { role: 'user', content: 'Sure?' }],
    });
    const assistant = groq.requests[1]!.json.messages[1];
    expect(assistant).toEqual({ role: 'assistant', content: '4' });
  });
});
