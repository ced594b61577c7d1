import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../core/errors.ts';
import { readGeminiContents } from '../../../../core/families/gemini/read-contents.ts';
import { createJsonArrayEncoder } from '../../../../core/families/gemini/write-json-array.ts';
import { writeGeminiErrorFrame, writeGeminiStream } from '../../../../core/families/gemini/write-stream.ts';
import type { SseMessage } from '../../../../core/http/sse-read.ts';
import { encodeSse, writeSse } from '../../../../core/http/sse-write.ts';
import { openStaged } from '../../../../core/http/staged-stream.ts';
import type { StreamEvent } from '../../../../core/ir.ts';
import { collect, fromArray, loadFixture } from '../../../helpers/streams.ts';

const thinkingAndTools: StreamEvent[] = [
  { type: 'start', id: 'msg_1', model: 'claude-sonnet', usage: { inputTokens: 12 } },
  { type: 'block-start', index: 0, block: { type: 'reasoning' } },
  { type: 'reasoning-delta', index: 0, text: 'Thinking about ' },
  { type: 'reasoning-delta', index: 0, text: 'weather.' },
  { type: 'signature', index: 0, signature: { origin: 'anthropic', value: 'EqQBsig' } },
  { type: 'block-end', index: 0 },
  { type: 'block-start', index: 1, block: { type: 'text' } },
  { type: 'text-delta', index: 1, text: 'Let me ' },
  { type: 'text-delta', index: 1, text: 'check.' },
  { type: 'block-end', index: 1 },
  { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'toolu_1', name: 'get_weather' } },
  { type: 'tool-input-delta', index: 2, json: '{"city":' },
  { type: 'tool-input-delta', index: 2, json: '"Paris"}' },
  { type: 'block-end', index: 2 },
  { type: 'block-start', index: 3, block: { type: 'tool-call', id: 'toolu_2', name: 'get_time' } },
  { type: 'block-end', index: 3 },
  { type: 'usage', usage: { outputTokens: 40 } },
  { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 12, outputTokens: 40, cacheReadTokens: 3 } },
];

async function messages(events: StreamEvent[], model = 'acme.claude-sonnet'): Promise<SseMessage[]> {
  return collect(fromArray(events).pipeThrough(writeGeminiStream({ model })));
}

async function wire(events: StreamEvent[]): Promise<string> {
  return new Response(fromArray(events).pipeThrough(writeGeminiStream({ model: 'acme.claude-sonnet' })).pipeThrough(writeSse())).text();
}

const chunks = (msgs: SseMessage[]) => msgs.map((m) => JSON.parse(m.data));

describe('writeGeminiStream', () => {
  it('writes exactly one data line per chunk, no event names, whole function calls, and a final chunk with a part and finishReason', async () => {
    const text = await wire(thinkingAndTools);
    expect(text).toBe(loadFixture('gemini/family-stream-thinking-tools.sse'));
    const events = text.split('\n\n').filter(Boolean);
    for (const event of events) expect(event).toMatch(/^data: \{[^\n]*\}$/);
    const last = JSON.parse(events.at(-1)!.slice(6));
    expect(last.candidates[0]).toEqual({ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 });
    expect(last.usageMetadata).toEqual({ promptTokenCount: 15, candidatesTokenCount: 40, totalTokenCount: 55, cachedContentTokenCount: 3 });
  });

  it('produces chunks whose contents, stored one per chunk as the SDK chat does, read back to the same turn', async () => {
    const contents = chunks(await messages(thinkingAndTools)).map((c) => c.candidates[0].content);
    expect(readGeminiContents([{ role: 'user', parts: [{ text: 'q' }] }, ...contents])[1]).toEqual({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'Thinking about weather.', signature: { origin: 'anthropic', value: 'EqQBsig' } },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool-call', id: 'toolu_2', name: 'get_time', input: {} },
      ],
    });
  });

  it('puts a signature-only reasoning block onto the next function call, and a Gemini call signature raw', async () => {
    const out = chunks(
      await messages([
        { type: 'start', id: 'r', model: 'x' },
        { type: 'block-start', index: 0, block: { type: 'reasoning' } },
        { type: 'signature', index: 0, signature: { origin: 'anthropic', value: 'SIG' } },
        { type: 'block-end', index: 0 },
        { type: 'block-start', index: 1, block: { type: 'tool-call', id: 't1', name: 'f' } },
        { type: 'tool-input-delta', index: 1, json: '{}' },
        { type: 'block-end', index: 1 },
        { type: 'block-start', index: 2, block: { type: 'tool-call', id: 't2', name: 'g', signature: { origin: 'gemini', value: 'R1NJRw==' } } },
        { type: 'block-end', index: 2 },
        { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 2 } },
      ]),
    );
    expect(out.map((c) => c.candidates[0].content.parts)).toEqual([
      [{ functionCall: { id: 't1', name: 'f', args: {} }, thoughtSignature: 'sy1.anthropic.SIG' }],
      [{ functionCall: { id: 't2', name: 'g', args: {} }, thoughtSignature: 'R1NJRw==' }],
      [{ text: '' }],
    ]);
  });

  it('puts a trailing reasoning signature on the last chunk', async () => {
    const out = chunks(
      await messages([
        { type: 'start', id: 'r', model: 'x' },
        { type: 'block-start', index: 0, block: { type: 'text' } },
        { type: 'text-delta', index: 0, text: 'Hi' },
        { type: 'text-delta', index: 0, text: '' },
        { type: 'block-end', index: 0 },
        { type: 'block-start', index: 1, block: { type: 'reasoning' } },
        { type: 'signature', index: 1, signature: { origin: 'anthropic', value: 'SIG' } },
        { type: 'block-end', index: 1 },
        { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } },
      ]),
    );
    expect(out).toEqual([
      { candidates: [{ content: { parts: [{ text: 'Hi' }], role: 'model' }, index: 0 }], modelVersion: 'acme.claude-sonnet', responseId: 'r' },
      {
        candidates: [{ content: { parts: [{ text: '', thoughtSignature: 'sy1.anthropic.SIG' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3 },
        modelVersion: 'acme.claude-sonnet',
        responseId: 'r',
      },
    ]);
  });

  it('ends with an error object carrying a numeric code on an error event, ignoring what follows', async () => {
    const out = await messages([
      { type: 'start', id: 'r', model: 'x' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Hi' },
      { type: 'error', error: new GatewayError('overloaded', 'Overloaded') },
      { type: 'text-delta', index: 0, text: 'late' },
    ]);
    expect(out).toHaveLength(2);
    expect(out[1]).toEqual({ data: '{"error":{"code":503,"message":"Overloaded","status":"UNAVAILABLE"}}' });
  });

  it('reports a stream that ends without finishing, and tool arguments that are not a JSON object', async () => {
    const cut = await messages([{ type: 'start', id: 'r', model: 'x' }]);
    expect(chunks(cut)).toEqual([{ error: { code: 502, message: 'The upstream stream ended before the answer was complete', status: 'UNAVAILABLE' } }]);
    const bad = await messages([
      { type: 'start', id: 'r', model: 'x' },
      { type: 'block-start', index: 0, block: { type: 'tool-call', id: 't', name: 'f' } },
      { type: 'tool-input-delta', index: 0, json: '[1,' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    expect(chunks(bad)).toEqual([{ error: { code: 502, message: 'The model sent arguments for "f" that are not a JSON object', status: 'UNAVAILABLE' } }]);
  });

  it('writes an error frame for failures thrown anywhere in the chain (withErrorFrame)', async () => {
    const queue: StreamEvent[] = [
      { type: 'start', id: 'r', model: 'x' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Hi' },
    ];
    const failing = new ReadableStream<StreamEvent>({
      pull(c) {
        const next = queue.shift();
        if (next) c.enqueue(next);
        else c.error(new GatewayError('rate_limit', 'Slow down'));
      },
    });
    const { stream } = await openStaged(failing, writeGeminiStream({ model: 'm' }));
    const guarded = stream.toReadable((err) => [writeGeminiErrorFrame(err as GatewayError)], (items) => (items.length ? new Uint8Array(Buffer.concat(items.map(encodeSse))) : undefined));
    const text = await new Response(guarded).text();
    expect(text).toBe(
      'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"modelVersion":"m","responseId":"r"}\n\n' +
        'data: {"error":{"code":429,"message":"Slow down","status":"RESOURCE_EXHAUSTED"}}\n\n',
    );
  });
});

describe('createJsonArrayEncoder', () => {
  it('writes the streamed JSON-array form batch by batch, closing it on the last', async () => {
    const encode = createJsonArrayEncoder();
    const all = await messages(thinkingAndTools);
    const out = [...all.map((m) => encode([m], false)), encode([], true)];
    const pieces = out.map((b) => new TextDecoder().decode(b));
    expect(pieces).toHaveLength(8);
    expect(pieces[0]!.startsWith('[{"candidates"')).toBe(true);
    expect(pieces[1]!.startsWith('\n,\r\n{"candidates"')).toBe(true);
    expect(pieces.at(-1)).toBe('\n]');
    expect(JSON.parse(pieces.join(''))).toEqual(chunks(await messages(thinkingAndTools)));
  });

  it('writes an empty array for an empty stream', async () => {
    const encode = createJsonArrayEncoder();
    expect(new TextDecoder().decode(encode([], true))).toBe('[]');
  });

  it('puts several messages of one batch and the closing bracket in one chunk', async () => {
    const encode = createJsonArrayEncoder();
    const [a, b] = await messages(thinkingAndTools);
    expect(encode([], false)).toBeUndefined();
    const text = new TextDecoder().decode(encode([a!, b!], true));
    expect(text).toBe(`[${a!.data}\n,\r\n${b!.data}\n]`);
  });
});
