import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSseReader } from '../../../../core/http/sse-read.ts';
import { pipeStages, type Stage, stageOf } from '../../../../core/http/stage.ts';
import type { StreamEvent } from '../../../../core/ir.ts';
import { TemplateCache } from '../../../../core/http/template-cache.ts';
import { createAnthropicMessageReader, type DeltaTemplate, readAnthropicStream } from '../../../../core/upstreams/anthropic/read-stream.ts';
import { concatBytes } from '../../../helpers/bedrock-frames.ts';
import { expectSameWire, readTextDeltas } from '../../../helpers/stream-wire.ts';

const encoder = new TextEncoder();

/** The reader as it was before events were read from their bytes: every event decoded and parsed. */
const parsedReader = (): Stage<Uint8Array, StreamEvent> => pipeStages(createSseReader(), createAnthropicMessageReader({ provider: 'claude' }));
const byteReader = (): Stage<Uint8Array, StreamEvent> => stageOf(readAnthropicStream({ provider: 'claude' }))!;

const event = (name: string | undefined, body: Record<string, unknown>) => `${name === undefined ? '' : `event: ${name}\n`}data: ${JSON.stringify(body)}\n\n`;
const start = event('message_start', { type: 'message_start', message: { id: 'msg_u', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 1 } } });
const block = (index: number, content_block: Record<string, unknown>) => event('content_block_start', { type: 'content_block_start', index, content_block });
const text = (t: string, index = 0, name: string | undefined = 'content_block_delta') => event(name, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } });
const stop = (index: number) => event('content_block_stop', { type: 'content_block_stop', index });
const end = event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } }) + event('message_stop', { type: 'message_stop' });
const ping = event('ping', { type: 'ping' });
const think = (t: string, index = 0) => event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: t } });
const signature = (index: number) => event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'EqQBCkgIARABGAIi' } });
const texts = ['Hello', ' "quoted"', ' line\nbreak', ' tab\t', ' é 中文 😀', ' \\', '\ufeffbom', ' \u2028', ' ctl\u0001'];

const fixtureDir = fileURLToPath(new URL('../../../fixtures/anthropic/', import.meta.url));
const streams: Record<string, string | Uint8Array> = {
  ...Object.fromEntries(readdirSync(fixtureDir).filter((f) => f.endsWith('.sse')).map((f) => [f, readFileSync(fixtureDir + f, 'utf8')])),
  'the bench stream': readFileSync(fileURLToPath(new URL('../../../../bench/upstream/anthropic-stream.sse', import.meta.url)), 'utf8'),
  'texts of every kind': start + block(0, { type: 'text', text: '' }) + ping + texts.map((t) => text(t)).join('') + stop(0) + end,
  'unnamed events': (start + block(0, { type: 'text', text: '' }) + texts.map((t) => text(t)).join('') + stop(0) + end).replace(/^event: .*\n/gm, ''),
  'escapes JSON.stringify would not write': start + block(0, { type: 'text', text: '' }) + text('a') + text('b') + text('é/').replace('é/', '\\u00e9\\/') + text('c') + stop(0) + end,
  'text, a tool, text again, and deltas for a block that is not open': start + block(0, { type: 'text', text: '' }) + text('a') + text('b') + stop(0) + block(1, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }) + event('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"x":1}' } }) + text('stray', 1) + stop(1) + block(2, { type: 'text', text: '' }) + text('c', 2) + text('d', 2) + text('late', 0) + text('later', 0) + text('e', 2) + stop(2) + end,
  'thinking then text': start + block(0, { type: 'thinking', thinking: '' }) + event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }) + event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }) + stop(0) + block(1, { type: 'text', text: '' }) + text('a', 1) + text('b', 1) + text('c', 1) + stop(1) + end,
  'long thinking, every kind of text, then text': start + block(0, { type: 'thinking', thinking: '' }) + texts.map((t) => think(t)).join('') + think('') + signature(0) + stop(0) + block(1, { type: 'text', text: '' }) + texts.map((t) => text(t, 1)).join('') + stop(1) + end,
  'thinking deltas for a block that is not open, and text deltas in a thinking block': start + block(0, { type: 'thinking', thinking: '' }) + think('a') + think('b') + text('not here') + think('c') + signature(0) + stop(0) + think('late') + think('later') + block(1, { type: 'text', text: '' }) + text('x', 1) + think('stray', 1) + think('again', 1) + text('y', 1) + stop(1) + end,
  'redacted thinking between thinking blocks': start + block(0, { type: 'thinking', thinking: '' }) + think('a') + think('b') + signature(0) + stop(0) + block(1, { type: 'redacted_thinking', data: 'cmVk' }) + stop(1) + block(2, { type: 'thinking', thinking: '' }) + think('c', 2) + think('d', 2) + think('e', 2) + signature(2) + stop(2) + end,
  'comments and ids between events': start + block(0, { type: 'text', text: '' }) + text('a') + ': keep-alive\n\n' + text('b') + 'id: 7\n' + text('c') + text('d') + stop(0) + end,
  'CRLF from the middle on': start + block(0, { type: 'text', text: '' }) + text('a') + text('b') + (text('c') + text('d') + stop(0) + end).replaceAll('\n', '\r\n'),
  'the bench stream with CRLF line ends': readFileSync(fileURLToPath(new URL('../../../../bench/upstream/anthropic-stream.sse', import.meta.url)), 'utf8').replaceAll('\n', '\r\n'),
  'LF and CRLF line ends mixed': start + block(0, { type: 'text', text: '' }) + text('a') + text('b').replace('\n', '\r\n') + text('c').replace('\n\n', '\r\n\n') + text('d').replace('\n\n', '\n\r\n') + text('e').replaceAll('\n', '\r\n') + text('f') + stop(0) + end,
  'CR line ends from the middle on': start + block(0, { type: 'text', text: '' }) + text('a') + text('b') + text('c').replaceAll('\n', '\r') + text('d') + stop(0) + end,
  'an error in the middle': start + block(0, { type: 'text', text: '' }) + text('a') + text('b') + event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) + text('c'),
  'cut short': start + block(0, { type: 'text', text: '' }) + text('a') + text('b') + text('c').slice(0, -1),
  'invalid UTF-8 in a text': concatBytes(encoder.encode(start + block(0, { type: 'text', text: '' }) + text('a') + text('b') + 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"'), new Uint8Array([0xe4, 0xb8, 0x41, 0xff]), encoder.encode('"}}\n\n' + text('c') + stop(0) + end)),
};

describe('the Anthropic stream read from its bytes', () => {
  it.each(Object.entries(streams))('%s: the same events, and the same bytes to every family, as parsing every event, however it is cut', (_name, stream) => {
    expectSameWire(typeof stream === 'string' ? encoder.encode(stream) : stream, byteReader, parsedReader, expect);
  });

  // One cache for every stream and cut, in turn: each reader starts with the template the one
  // before it left, learned from this stream or from another.
  const templates = new TemplateCache<DeltaTemplate>();
  it.each(Object.entries(streams))('%s: the same, starting with the template an earlier stream left', (_name, stream) => {
    const withTemplates = () => stageOf(readAnthropicStream({ provider: 'claude', model: 'claude-x', templates }))!;
    expectSameWire(typeof stream === 'string' ? encoder.encode(stream) : stream, withTemplates, parsedReader, expect);
  });

  it("starts with the template its model's last stream learned", () => {
    const cache = new TemplateCache<DeltaTemplate>();
    const reader = (model: string) => stageOf(readAnthropicStream({ provider: 'claude', model, templates: cache }))!;
    const stream = encoder.encode(streams['the bench stream'] as string);
    const first = readTextDeltas(reader('claude-x'), stream, 1500);
    expect(first.slice(0, 2)).toEqual(['text', 'span']);
    expect(readTextDeltas(reader('claude-x'), stream, 1500)).toEqual(first.map(() => 'span'));
    expect(readTextDeltas(reader('claude-y'), stream, 1500)).toEqual(first);
    // A template that does not fit (a thinking delta's, at another index) costs a parse: the stream learns its own.
    const thinking = start + block(0, { type: 'thinking', thinking: '' }) + think('a') + think('b') + signature(0) + stop(0) + block(1, { type: 'text', text: '' }) + text('c', 1) + text('d', 1) + stop(1) + end;
    expect(readTextDeltas(reader('claude-x'), encoder.encode(thinking), 1500, 'reasoning-delta')).toEqual(['text', 'span']);
    expect(readTextDeltas(reader('claude-x'), encoder.encode(thinking), 1500, 'text-delta')).toEqual(['text', 'span']);
  });

  it('reads most text deltas from their bytes', () => {
    const deltas = readTextDeltas(byteReader(), encoder.encode(streams['the bench stream'] as string), 1500);
    // All but the first delta (whose template is learned from it).
    expect(deltas.slice(1)).toEqual(deltas.slice(1).map(() => 'span'));
    expect(deltas.length).toBeGreaterThan(10);
  });

  it('reads them from their bytes with CRLF line ends too', () => {
    const deltas = readTextDeltas(byteReader(), encoder.encode(streams['the bench stream with CRLF line ends'] as string), 1500);
    expect(deltas.slice(1)).toEqual(deltas.slice(1).map(() => 'span'));
    expect(deltas.length).toBeGreaterThan(10);
  });

  it('reads most thinking deltas from their bytes', () => {
    const stream = encoder.encode(streams['long thinking, every kind of text, then text'] as string);
    const deltas = readTextDeltas(byteReader(), stream, 1500, 'reasoning-delta');
    // The first is parsed (its template is learned from it); every later text is written as
    // JSON.stringify writes it (the stream is built with it), so each is a span.
    expect(deltas).toEqual(['text', ...texts.slice(1).map(() => 'span')]);
  });
});
