/**
 * Pitfall 5 (LiteLLM #16711): the conversion produced two tool_result blocks for one tool_use and
 * the upstream answered 400. Whatever the client's history looks like, each tool call gets
 * exactly one result upstream, right after the turn that made the call.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';

let up: FourUpstreams;

const ANTHROPIC_MESSAGE = {
  id: 'msg_5',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text: 'It is 18°C.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 20, output_tokens: 6 },
};
const OPENAI_COMPLETION = {
  id: 'chatcmpl-5',
  object: 'chat.completion',
  created: 1,
  model: 'oss',
  choices: [{ index: 0, message: { role: 'assistant', content: 'It is 18°C.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 },
};

beforeAll(async () => {
  up = await startFourUpstreams({
    claude: () => ({ body: ANTHROPIC_MESSAGE }),
    oss: () => ({ body: OPENAI_COMPLETION }),
    models: [
      { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] },
      { id: 'qwen3-coder', routes: [{ provider: 'oss', model: 'qwen3-coder' }] },
    ],
  });
});
afterAll(() => up.close());
beforeEach(() => up.clearRecords());

/** Tool-result ids in upstream OpenAI messages, in order. */
const toolMessageIds = (messages: Array<{ role: string; tool_call_id?: string }>) => messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
/** Tool-result ids per upstream Anthropic user turn. */
const toolResultIds = (messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string }> }>) =>
  messages.filter((m) => m.role === 'user').map((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));

describe('pitfall 5: Claude-style history → OpenAI-compatible upstream', () => {
  it('Claude Code parallel tool results (one with an image, one with several text blocks) give one tool message per call', async () => {
    const client = new Anthropic1({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    await client.messages.create({
      model: 'acme.qwen3-coder',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Screenshot the page and list the files.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Doing both.' },
            { type: 'tool_use', id: 'toolu_shot', name: 'screenshot', input: {} },
            { type: 'tool_use', id: 'toolu_ls', name: 'ls', input: { dir: '.' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_shot', content: [{ type: 'text', text: 'Captured:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] },
            { type: 'tool_result', tool_use_id: 'toolu_ls', content: [{ type: 'text', text: 'a.ts' }, { type: 'text', text: 'b.ts' }] },
            { type: 'text', text: 'Go on.' },
          ],
        },
      ],
    });
    const sent = up.oss.requests[0]!.json.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(toolMessageIds(sent)).toEqual(['toolu_shot', 'toolu_ls']);
    expect(sent[2]).toEqual({ role: 'tool', tool_call_id: 'toolu_shot', content: 'Captured:' });
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'toolu_ls', content: 'a.ts\n\nb.ts' });
    expect(sent[4]).toEqual({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }, { type: 'text', text: 'Go on.' }] });
  });

  it('a client that sends the same tool_result twice gets one tool message', async () => {
    const client = new Anthropic1({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    await client.messages.create({
      model: 'acme.qwen3-coder',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'List the files.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_ls', name: 'ls', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_ls', content: 'a.ts' }, { type: 'tool_result', tool_use_id: 'toolu_ls', content: 'b.ts' }] },
      ],
    });
    const sent = up.oss.requests[0]!.json.messages;
    expect(sent.slice(2)).toEqual([{ role: 'tool', tool_call_id: 'toolu_ls', content: 'a.ts\n\nb.ts' }]);
  });
});

/** A Gemini-style chat whose last user turn answers one call twice (a client retry, a re-sent turn). */
function geminiHistory(withIds: boolean, split: boolean) {
  const id = withIds ? { id: 'fc_1' } : {};
  const response = { functionResponse: { ...id, name: 'get_weather', response: { output: '18°C' } } };
  return {
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { ...id, name: 'get_weather', args: { city: 'Paris' } } }] },
      ...(split ? [{ role: 'user', parts: [response] }, { role: 'user', parts: [response] }] : [{ role: 'user', parts: [response, response] }]),
    ],
    tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] }],
  };
}

const generate = (model: string, body: unknown) =>
  fetch(`${up.gateway.url}/api/gemini/v1beta/models/${model}:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
    body: JSON.stringify(body),
  });

describe.each([
  ['with call ids (Gemini 3)', true, false],
  ['without call ids (Gemini 2.5)', false, false],
  ['without ids, the second response in a content of its own', false, true],
] as const)('pitfall 5: Gemini-style history with two functionResponses for one call, %s', (_name, withIds, split) => {
  it('→ Anthropic upstream: one tool_result for the tool_use', async () => {
    const res = await generate('acme.claude-sonnet-4-6', geminiHistory(withIds, split));
    expect(res.status).toBe(200);
    const sent = up.claude.requests[0]!.json;
    const toolUseIds = sent.messages[1].content.filter((b: { type: string }) => b.type === 'tool_use').map((b: { id: string }) => b.id);
    expect(toolUseIds).toHaveLength(1);
    expect(toolResultIds(sent.messages)).toEqual([[], toolUseIds]);
  });

  it('→ OpenAI-compatible upstream: one tool message for the tool call', async () => {
    const res = await generate('acme.qwen3-coder', geminiHistory(withIds, split));
    expect(res.status).toBe(200);
    const sent = up.oss.requests[0]!.json.messages;
    const callIds = sent[1].tool_calls.map((c: { id: string }) => c.id);
    expect(callIds).toHaveLength(1);
    expect(toolMessageIds(sent)).toEqual(callIds);
  });
});

describe('pitfall 5: control — two calls to the same function are two results, not one merged', () => {
  it('Gemini history without ids pairs the k-th response with the k-th call', async () => {
    const res = await generate('acme.claude-sonnet-4-6', {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: '18°C' } } }, { functionResponse: { name: 'get_weather', response: { output: '25°C' } } }] },
      ],
    });
    expect(res.status).toBe(200);
    const sent = up.claude.requests[0]!.json.messages;
    const calls = sent[1].content.map((b: { id: string; input: unknown }) => [b.id, b.input]);
    const results = sent[2].content.map((b: { tool_use_id: string; content: unknown }) => [b.tool_use_id, b.content]);
    expect(results).toEqual([
      [calls[0][0], [{ type: 'text', text: '18°C' }]],
      [calls[1][0], [{ type: 'text', text: '25°C' }]],
    ]);
    expect(calls.map((c: unknown[]) => c[1])).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
  });
});
