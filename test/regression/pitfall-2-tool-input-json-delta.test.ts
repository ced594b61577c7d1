/**
 * Pitfall 2 (LiteLLM #25321, PR #13638): tool calls reach Claude Code with `input: {}` because the
 * bridge drops argument fragments or sends them as text_delta. Arguments must arrive as
 * input_json_delta on the tool's own block, whatever the host's fragmenting: streamed in pieces,
 * the whole call in one fragment (with index 0 reused or no index), or two calls interleaved.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { parseSse, postMessages } from './helpers/messages-wire.ts';
import { startOneOpenAIHost, type OneOpenAIHost } from './helpers/one-openai-host.ts';

let up: OneOpenAIHost;

beforeAll(async () => {
  up = await startOneOpenAIHost('oss', 'glm-4.6', 'zai/glm-4.6');
});
afterAll(() => up.close());

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'zai/glm-4.6', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const END = [
  chunk({}, 'tool_calls'),
  `data: ${JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1, model: 'zai/glm-4.6', choices: [], usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 } })}\n\n`,
  'data: [DONE]\n\n',
];
const call = (index: number | undefined, id: string | undefined, name: string | undefined, args: string) => ({
  ...(index === undefined ? {} : { index }),
  ...(id ? { id, type: 'function' } : {}),
  function: { ...(name ? { name } : {}), arguments: args },
});

const WEATHER_PARIS = { city: 'Paris', units: { system: 'metric', precision: 1 } };
const TIME_CET = { tz: 'CET' };

const HOSTS: Array<[string, string[], Array<{ id: string; name: string; input: unknown }>]> = [
  [
    'arguments streamed in small pieces',
    [
      chunk({ role: 'assistant', content: null, tool_calls: [call(0, 'call_w', 'get_weather', '')] }),
      ...['{"ci', 'ty": "Par', 'is", "units": {"sys', 'tem": "metric", "precision": 1}', '}'].map((a) => chunk({ tool_calls: [call(0, undefined, undefined, a)] })),
      ...END,
    ],
    [{ id: 'call_w', name: 'get_weather', input: WEATHER_PARIS }],
  ],
  [
    'each call whole in one fragment, index 0 reused (some vLLM/SGLang builds)',
    [
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [call(0, 'call_w', 'get_weather', JSON.stringify(WEATHER_PARIS))] }),
      chunk({ tool_calls: [call(0, 'call_t', 'get_time', JSON.stringify(TIME_CET))] }),
      ...END,
    ],
    [
      { id: 'call_w', name: 'get_weather', input: WEATHER_PARIS },
      { id: 'call_t', name: 'get_time', input: TIME_CET },
    ],
  ],
  [
    'each call whole in one fragment, without index',
    [
      chunk({ role: 'assistant', content: null, tool_calls: [call(undefined, 'call_w', 'get_weather', JSON.stringify(WEATHER_PARIS)), call(undefined, 'call_t', 'get_time', JSON.stringify(TIME_CET))] }),
      ...END,
    ],
    [
      { id: 'call_w', name: 'get_weather', input: WEATHER_PARIS },
      { id: 'call_t', name: 'get_time', input: TIME_CET },
    ],
  ],
  [
    'two parallel calls with interleaved fragments',
    [
      chunk({ role: 'assistant', content: null, tool_calls: [call(0, 'call_w', 'get_weather', '')] }),
      chunk({ tool_calls: [call(1, 'call_t', 'get_time', '')] }),
      chunk({ tool_calls: [call(0, undefined, undefined, '{"city":"Paris",')] }),
      chunk({ tool_calls: [call(1, undefined, undefined, '{"tz":')] }),
      chunk({ tool_calls: [call(0, undefined, undefined, '"units":{"system":"metric","precision":1}}')] }),
      chunk({ tool_calls: [call(1, undefined, undefined, '"CET"}')] }),
      ...END,
    ],
    [
      { id: 'call_w', name: 'get_weather', input: WEATHER_PARIS },
      { id: 'call_t', name: 'get_time', input: TIME_CET },
    ],
  ],
];

const tools = [
  { name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' }, units: { type: 'object' } } } },
  { name: 'get_time', input_schema: { type: 'object' as const, properties: { tz: { type: 'string' } } } },
];
const body = { model: 'acme.glm-4.6', max_tokens: 256, stream: true, tools, messages: [{ role: 'user', content: 'Weather and time in Paris?' }] };

describe.each(HOSTS)('pitfall 2: %s', (_name, chunks, expected) => {
  it('raw SSE: each call is a tool_use block whose arguments come only as input_json_delta on that block', async () => {
    up.host.reply(() => ({ chunks }));
    const res = await postMessages(up.gateway.url, body, { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}`, 'anthropic-version': '2026-10-21' });
    const events = parseSse(await res.text());
    const blocks = events.filter((e) => e.event === 'content_block_start').map((e) => e.data);
    expect(blocks).toEqual(expected.map((c, index) => ({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } })));
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data);
    expect(deltas.every((d) => d.delta.type === 'input_json_delta')).toBe(true);
    // The JSON of each block, joined from its own deltas only, is the full input.
    const joined = expected.map((_c, index) => deltas.filter((d) => d.index === index).map((d) => d.delta.partial_json).join(''));
    expect(joined.map((j) => JSON.parse(j))).toEqual(expected.map((c) => c.input));
  });

  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('SDK %s finalMessage() has the full input of every call', async (_v, Client) => {
    up.host.reply(() => ({ chunks, delayMs: 1 }));
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    const final = await client.messages.stream(body as never).finalMessage();
    expect(final.content).toEqual(expected.map((c) => ({ type: 'tool_use', ...c })));
    expect(final.stop_reason).toBe('tool_use');
  });
});
