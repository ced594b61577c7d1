/**
 * Pitfall 15 (CCR #160, #645): tool use stops after the first message when Gemini sits behind an
 * OpenAI-format proxy. Gemini's OpenAI-compatible endpoint ends tool-call turns with
 * `finish_reason: "stop"` (googleapis/python-genai #2868) and may leave call ids empty; passed on
 * as `end_turn`, Claude Code never runs the tool. A turn that made tool calls is a `tool_use`
 * turn, whatever the host says, and the loop must keep going over several turns, through the
 * OpenAI-compatible route and the native Gemini route alike.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

let compat: FakeUpstream;
let google: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  compat = await startFakeUpstream();
  google = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: {
        compat: { type: 'openai', baseUrl: `${compat.url}/v1beta/openai`, apiKey: 'g-key' },
        google: { type: 'gemini', baseUrl: google.url, apiKey: 'g-key' },
      },
      models: [
        { id: 'gemini-via-openai', routes: [{ provider: 'compat', model: 'gemini-2.5-flash' }] },
        { id: 'gemini-native', routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
      ],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await compat.close();
  await google.close();
});
beforeEach(() => {
  compat.requests.length = 0;
  google.requests.length = 0;
});

const client = () => new Anthropic1({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
const tools = [{ name: 'ls', input_schema: { type: 'object' as const, properties: { dir: { type: 'string' } } } }];

/** Gemini's OpenAI-compatible answers: a tool call ended with "stop", empty id as some versions send. */
const compatChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: '', object: 'chat.completion.chunk', created: 1, model: 'gemini-2.5-flash', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const compatStream = (dir: string) => [
  compatChunk({ role: 'assistant', tool_calls: [{ index: 0, id: '', type: 'function', function: { name: 'ls', arguments: JSON.stringify({ dir }) } }] }, 'stop'),
  `data: ${JSON.stringify({ id: '', object: 'chat.completion.chunk', created: 1, model: 'gemini-2.5-flash', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
  'data: [DONE]\n\n',
];
const compatMessage = (dir: string) => ({
  id: '',
  object: 'chat.completion',
  created: 1,
  model: 'gemini-2.5-flash',
  choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: '', type: 'function', function: { name: 'ls', arguments: JSON.stringify({ dir }) } }] }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});
const compatDoneStream = [
  compatChunk({ role: 'assistant', content: 'Two folders.' }, 'stop'),
  `data: ${JSON.stringify({ id: '', object: 'chat.completion.chunk', created: 1, model: 'gemini-2.5-flash', choices: [], usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 } })}\n\n`,
  'data: [DONE]\n\n',
];
const compatDone = { id: '', object: 'chat.completion', created: 1, model: 'gemini-2.5-flash', choices: [{ index: 0, message: { role: 'assistant', content: 'Two folders.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 } };

/** Native Gemini: a functionCall with finishReason STOP (Gemini never says "tool calls"). */
const geminiCall = (dir: string) => ({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'ls', args: { dir } } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, responseId: 'r15' });
const geminiDone = { candidates: [{ content: { role: 'model', parts: [{ text: 'Two folders.' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 3, totalTokenCount: 23 } };

/** Runs a Claude Code-style loop: ask, run every tool_use, send the results, until the model stops. */
async function loop(model: string, stream: boolean, script: Array<() => void>) {
  const messages: Anthropic1.MessageParam[] = [{ role: 'user', content: 'List src and test' }];
  const stops: string[] = [];
  for (const next of script) {
    next();
    const params = { model, max_tokens: 256, tools, messages };
    const turn = stream ? await client().messages.stream(params).finalMessage() : await client().messages.create(params);
    stops.push(turn.stop_reason!);
    if (turn.stop_reason !== 'tool_use') break;
    const calls = turn.content.filter((b) => b.type === 'tool_use') as Anthropic1.ToolUseBlock[];
    messages.push({ role: 'assistant', content: turn.content as never }, { role: 'user', content: calls.map((c) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: 'a.ts' })) });
  }
  return { stops, messages };
}

describe.each([
  ['streamed', true],
  ['non-streamed', false],
] as const)('pitfall 15: Gemini behind an OpenAI-compatible endpoint, %s', (_name, stream) => {
  it('finish_reason "stop" with tool calls is stop_reason tool_use, and the loop runs to the end', async () => {
    const reply = (dir: string) => () => compat.reply(() => (stream ? { chunks: compatStream(dir) } : { body: compatMessage(dir) }));
    const { stops, messages } = await loop('acme.gemini-via-openai', stream, [reply('src'), reply('test'), () => compat.reply(() => (stream ? { chunks: compatDoneStream } : { body: compatDone }))]);
    expect(stops).toEqual(['tool_use', 'tool_use', 'end_turn']);
    // Every tool_use got a usable id, and the results went back under it.
    const sent = compat.requests.at(-1)!.json.messages;
    const ids = sent.filter((m: { role: string }) => m.role === 'assistant').map((m: { tool_calls: Array<{ id: string }> }) => m.tool_calls[0]!.id);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(new Set(ids).size).toBe(2);
    expect(sent.filter((m: { role: string }) => m.role === 'tool').map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(ids);
    expect(messages).toHaveLength(5);
  });
});

describe('pitfall 15: native Gemini route', () => {
  it('a functionCall answer with finishReason STOP keeps the tool loop going', async () => {
    const { stops } = await loop('acme.gemini-native', false, [
      () => google.reply(() => ({ body: geminiCall('src') })),
      () => google.reply(() => ({ body: geminiCall('test') })),
      () => google.reply(() => ({ body: geminiDone })),
    ]);
    expect(stops).toEqual(['tool_use', 'tool_use', 'end_turn']);
    const contents = google.requests.at(-1)!.json.contents;
    expect(contents.map((c: { role: string; parts: Array<Record<string, unknown>> }) => [c.role, Object.keys(c.parts[0]!)[0]])).toEqual([
      ['user', 'text'],
      ['model', 'functionCall'],
      ['user', 'functionResponse'],
      ['model', 'functionCall'],
      ['user', 'functionResponse'],
    ]);
  });
});
