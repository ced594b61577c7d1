/**
 * Pitfall 7 (LiteLLM PR #31654, PR #38809; Portkey's Messages adapter): thinking blocks lose their
 * signatures, and signature-only blocks (adaptive thinking with `display: "omitted"`: empty
 * thinking text, a signature) were discarded, so the next tool turn could not replay reasoning.
 * A signature-only block must reach the client and come back to Anthropic byte-exact, on the
 * Claude-style fast path and through a translated (Gemini-style) conversation.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

const SIGNATURE = 'EuYBCkQYAiJAw8VhS3BqOmitted+Display/Signature==';
const TOOL_USE = { type: 'tool_use', id: 'toolu_07', name: 'get_weather', input: { city: 'Paris' } };

let claude: FakeUpstream;
let gateway: RunningGateway;

const sse = (event: string, data: Record<string, unknown>) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
/** What Claude streams for adaptive thinking with display "omitted": a thinking block with only a signature_delta. */
const OMITTED_STREAM = [
  sse('message_start', { message: { id: 'msg_07', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 30, output_tokens: 1 } } }),
  sse('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }),
  sse('content_block_stop', { index: 0 }),
  sse('content_block_start', { index: 1, content_block: { ...TOOL_USE, input: {} } }),
  sse('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' } }),
  sse('content_block_stop', { index: 1 }),
  sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } }),
  sse('message_stop', {}),
];
const OMITTED_MESSAGE = {
  id: 'msg_07',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'thinking', thinking: '', signature: SIGNATURE }, TOOL_USE],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 30, output_tokens: 40 },
};
const FINAL_MESSAGE = { ...OMITTED_MESSAGE, content: [{ type: 'text', text: '18°C and sunny.' }], stop_reason: 'end_turn' };

beforeAll(async () => {
  claude = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: { claude: { type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant' } },
      models: [{ id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] }],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await claude.close();
});
beforeEach(() => {
  claude.requests.length = 0;
});

const weatherTool = { name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };

describe.each([
  ['1.x', Anthropic1],
  ['0.x', Anthropic0],
] as const)('pitfall 7: Claude-style fast path, SDK %s', (_v, Client) => {
  it('a streamed signature-only thinking block reaches finalMessage() and is replayed byte-exact', async () => {
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
    const thinking = { type: 'adaptive', display: 'omitted' } as never;
    claude.reply(() => ({ chunks: OMITTED_STREAM }));
    const first = await client.messages.stream({ model: 'acme.claude-sonnet-4-6', max_tokens: 2048, thinking, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] }).finalMessage();
    expect(first.content).toEqual([{ type: 'thinking', thinking: '', signature: SIGNATURE }, TOOL_USE]);

    claude.reply(() => ({ body: FINAL_MESSAGE }));
    await client.messages.create({
      model: 'acme.claude-sonnet-4-6',
      max_tokens: 2048,
      thinking,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content as never },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_07', content: '18°C, sunny' }] },
      ],
    });
    expect(claude.requests[1]!.json.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: SIGNATURE }, TOOL_USE] });
  });
});

/** A Gemini-style client in front of Claude: the conversation is translated both ways. */
describe('pitfall 7: translated replay (Gemini-style client → Anthropic upstream)', () => {
  const tools = [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] }];
  const ask = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };
  const post = (action: string, body: unknown) =>
    fetch(`${gateway.url}/api/gemini/v1beta/models/acme.claude-sonnet-4-6:${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify(body),
    });

  /** Sends the model turn(s) back with the function's answer; returns the assistant turn Anthropic received. */
  async function replay(modelContents: unknown[]) {
    claude.reply(() => ({ body: FINAL_MESSAGE }));
    const res = await post('generateContent', {
      contents: [ask, ...modelContents, { role: 'user', parts: [{ functionResponse: { id: 'toolu_07', name: 'get_weather', response: { output: '18°C, sunny' } } }] }],
      tools,
    });
    expect(res.status).toBe(200);
    return claude.requests.at(-1)!.json.messages[1];
  }

  it('non-streamed: the signature rides on the functionCall and comes back as the same thinking block', async () => {
    claude.reply(() => ({ body: OMITTED_MESSAGE }));
    const res = await post('generateContent', { contents: [ask], tools });
    const content = (await res.json()).candidates[0].content;
    expect(content.parts).toEqual([{ functionCall: { id: 'toolu_07', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: `sy1.anthropic.${SIGNATURE}` }]);
    expect(await replay([content])).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: SIGNATURE }, TOOL_USE] });
  });

  it('streamed: the chunks, replayed as the SDK stores them (one content per chunk), restore the thinking block', async () => {
    claude.reply(() => ({ chunks: OMITTED_STREAM }));
    const res = await post('streamGenerateContent?alt=sse', { contents: [ask], tools });
    const chunks = (await res.text()).split('\n\n').filter((c) => c.trim()).map((c) => JSON.parse(c.slice('data: '.length)));
    const contents = chunks.map((c) => c.candidates[0].content);
    expect(contents.flatMap((c) => c.parts).filter((p: { thoughtSignature?: string }) => p.thoughtSignature)).toEqual([
      expect.objectContaining({ thoughtSignature: `sy1.anthropic.${SIGNATURE}` }),
    ]);
    expect(await replay(contents)).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: SIGNATURE }, TOOL_USE] });
  });
});
