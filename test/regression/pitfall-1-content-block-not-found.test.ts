/**
 * Pitfall 1 (LiteLLM #13373): Claude Code talking to an OpenAI-compatible model through the
 * Messages bridge dies with "Content block not found" when the bridge's block indices drift, e.g.
 * when text follows a tool call. The wire must open blocks 0, 1, 2… in order, and every delta must
 * name the block that is open, of the right type.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { parseSse, postMessages, type WireEvent } from './helpers/messages-wire.ts';
import { startOneOpenAIHost, type OneOpenAIHost } from './helpers/one-openai-host.ts';

let up: OneOpenAIHost;

beforeAll(async () => {
  up = await startOneOpenAIHost('qwen', 'qwen3-coder', 'Qwen/Qwen3-Coder');
});
afterAll(() => up.close());
beforeEach(() => {
  up.host.requests.length = 0;
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'Qwen/Qwen3-Coder', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usage = (prompt: number, completion: number) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'Qwen/Qwen3-Coder', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`;

/** Text, a tool call, then more text (what Qwen and GLM do), with the empty `content` fields they send alongside tool fragments. */
const TEXT_TOOL_TEXT = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Let me check ' }),
  chunk({ content: 'the file.' }),
  chunk({ content: '', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
  chunk({ content: null, tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] }),
  chunk({ content: 'I will read it ' }),
  chunk({ content: 'now.' }),
  chunk({}, 'tool_calls'),
  usage(120, 40),
  'data: [DONE]\n\n',
];

const tools = [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } }, required: ['path'] } }];
const body = { model: 'acme.qwen3-coder', max_tokens: 512, stream: true, tools, messages: [{ role: 'user', content: 'Open a.ts' }] };

const DELTA_BLOCK: Record<string, string> = { text_delta: 'text', input_json_delta: 'tool_use', thinking_delta: 'thinking', signature_delta: 'thinking' };

/** Replays the SDK's bookkeeping strictly: returns the problems instead of throwing on the first. */
function grammarProblems(events: WireEvent[]): string[] {
  const problems: string[] = [];
  const blocks: string[] = [];
  let open: number | undefined;
  events.forEach(({ event, data }, i) => {
    if (event !== data.type) problems.push(`#${i}: event name ${event} but data.type ${data.type}`);
    if (i === 0 && event !== 'message_start') problems.push(`#0: ${event} before message_start`);
    switch (event) {
      case 'content_block_start':
        if (open !== undefined) problems.push(`#${i}: block ${data.index} starts while ${open} is open`);
        if (data.index !== blocks.length) problems.push(`#${i}: block index ${data.index}, expected ${blocks.length}`);
        blocks.push(data.content_block.type);
        open = data.index;
        break;
      case 'content_block_delta':
        if (data.index !== open) problems.push(`#${i}: delta for block ${data.index} but open is ${open}`);
        else if (DELTA_BLOCK[data.delta.type] !== blocks[data.index]) problems.push(`#${i}: ${data.delta.type} into a ${blocks[data.index]} block`);
        break;
      case 'content_block_stop':
        if (data.index !== open) problems.push(`#${i}: stop for block ${data.index} but open is ${open}`);
        open = undefined;
        break;
      case 'message_delta':
      case 'message_stop':
        if (open !== undefined) problems.push(`#${i}: ${event} while block ${open} is open`);
        break;
    }
  });
  if (events.at(-1)?.event !== 'message_stop') problems.push(`last event is ${events.at(-1)?.event}`);
  return problems;
}

describe('pitfall 1: text → tool call → text from an OpenAI-compatible model', () => {
  it('the raw SSE opens blocks 0, 1, 2 in order and every delta targets the open block of its type', async () => {
    up.host.reply(() => ({ chunks: TEXT_TOOL_TEXT }));
    const res = await postMessages(up.gateway.url, body);
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    expect(grammarProblems(events)).toEqual([]);
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => [e.data.index, e.data.content_block.type]);
    expect(starts).toEqual([
      [0, 'text'],
      [1, 'tool_use'],
      [2, 'text'],
    ]);
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => [e.data.index, e.data.delta.type]);
    expect(deltas).toEqual([
      [0, 'text_delta'],
      [0, 'text_delta'],
      [1, 'input_json_delta'],
      [1, 'input_json_delta'],
      [2, 'text_delta'],
      [2, 'text_delta'],
    ]);
    expect(events.find((e) => e.event === 'message_delta')!.data.delta.stop_reason).toBe('tool_use');
  });

  it.each([
    ['@anthropic-ai/sdk 1.x', Anthropic1],
    ['@anthropic-ai/sdk 0.x', Anthropic0],
  ] as const)('%s: finalMessage() accumulates the three blocks without "Content block not found"', async (_name, Client) => {
    up.host.reply(() => ({ chunks: TEXT_TOOL_TEXT, delayMs: 1 }));
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    const stream = client.messages.stream(body as never);
    const seen: string[] = [];
    stream.on('streamEvent', (event) => seen.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual([
      { type: 'text', text: 'Let me check the file.' },
      { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'text', text: 'I will read it now.' },
    ]);
    expect(final.stop_reason).toBe('tool_use');
    expect(seen[0]).toBe('message_start');
    expect(seen.at(-1)).toBe('message_stop');
  });
});
