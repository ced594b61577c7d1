import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSseReader } from '../../../../core/http/sse-read.ts';
import { pipeStages, type Stage, stageOf } from '../../../../core/http/stage.ts';
import type { ChatRequest, StreamEvent } from '../../../../core/ir.ts';
import { TemplateCache } from '../../../../core/http/template-cache.ts';
import type { ChunkTemplate } from '../../../../core/upstreams/openai/chunk-template.ts';
import { createOpenAIChunkReader, readOpenAIStream } from '../../../../core/upstreams/openai/read-stream.ts';
import { concatBytes } from '../../../helpers/bedrock-frames.ts';
import { expectSameWire, readTextDeltas } from '../../../helpers/stream-wire.ts';

const req: ChatRequest = { model: 'm', system: [], messages: [], stream: true, source: { family: 'anthropic', extra: {} } };
const encoder = new TextEncoder();

/** The reader as it was before events were read from their bytes: every event decoded and parsed. */
const parsedReader = (): Stage<Uint8Array, StreamEvent> => pipeStages(createSseReader(), createOpenAIChunkReader(req, 'oss'));
const byteReader = (): Stage<Uint8Array, StreamEvent> => stageOf(readOpenAIStream(req, 'oss'))!;

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const finish = (reason = 'stop') => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: reason }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: 'c', choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } })}\n\n`;
const texts = ['Hello', ' "quoted"', ' line\nbreak', ' tab\t', ' é 中文 😀', ' \\', '\ufeffbom', ' \u2028', ' ctl\u0001'];

const fixtureDir = fileURLToPath(new URL('../../../fixtures/openai/', import.meta.url));
const streams: Record<string, string | Uint8Array> = {
  ...Object.fromEntries(readdirSync(fixtureDir).filter((f) => f.endsWith('.sse')).map((f) => [f, readFileSync(fixtureDir + f, 'utf8')])),
  'the bench stream': readFileSync(fileURLToPath(new URL('../../../../bench/upstream/openai-stream.sse', import.meta.url)), 'utf8'),
  'texts of every kind': chunk({ role: 'assistant', content: '' }) + texts.map((t) => chunk({ content: t })).join('') + finish() + usage + 'data: [DONE]\n\n',
  'escapes JSON.stringify would not write': chunk({ content: 'a' }) + chunk({ content: 'b' }) + chunk({ content: 'é/' }).replace('é/', '\\u00e9\\/') + chunk({ content: 'c' }) + finish() + 'data: [DONE]\n\n',
  'comments, ids and named events between chunks': chunk({ content: 'a' }) + ': keep-alive\n\n' + chunk({ content: 'b' }) + 'id: 4\n' + chunk({ content: 'c' }) + 'event: message\n' + chunk({ content: 'd' }) + chunk({ content: 'e' }) + finish() + 'data: [DONE]\n\n',
  'data: without its space, and one event in two data lines': chunk({ content: 'a' }) + chunk({ content: 'b' }).replace('data: ', 'data:') + 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",\ndata: "choices":[{"index":0,"delta":{"content":"c"},"finish_reason":null}]}\n\n' + chunk({ content: 'd' }) + finish() + 'data: [DONE]\n\n',
  'CRLF from the middle on': chunk({ content: 'a' }) + chunk({ content: 'b' }) + (chunk({ content: 'c' }) + chunk({ content: 'd' }) + finish() + 'data: [DONE]\n\n').replaceAll('\n', '\r\n'),
  'the bench stream with CRLF line ends': readFileSync(fileURLToPath(new URL('../../../../bench/upstream/openai-stream.sse', import.meta.url)), 'utf8').replaceAll('\n', '\r\n'),
  'LF and CRLF line ends mixed': chunk({ content: 'a' }) + chunk({ content: 'b' }).replace('\n\n', '\r\n\n') + chunk({ content: 'c' }).replace('\n\n', '\n\r\n') + 'event: message\r\n' + chunk({ content: 'd' }) + chunk({ content: 'e' }).replaceAll('\n', '\r\n') + finish() + 'data: [DONE]\n\n',
  'CR line ends from the middle on': chunk({ content: 'a' }) + chunk({ content: 'b' }) + chunk({ content: 'c' }).replaceAll('\n', '\r') + chunk({ content: 'd' }) + finish() + 'data: [DONE]\n\n',
  'reasoning of every kind, then text': chunk({ role: 'assistant', content: '' }) + texts.map((t) => chunk({ reasoning_content: t, content: null })).join('') + texts.map((t) => chunk({ content: t })).join('') + finish() + usage + 'data: [DONE]\n\n',
  'reasoning under `reasoning`, text, reasoning again': texts.map((t) => chunk({ reasoning: t })).join('') + chunk({ content: 'a' }) + chunk({ content: 'b' }) + chunk({ content: 'c' }) + chunk({ reasoning: 'x' }) + chunk({ reasoning: 'y' }) + chunk({ reasoning: 'z' }) + finish() + 'data: [DONE]\n\n',
  'reasoning, then text, then <think> never': chunk({ reasoning_content: 'Let me' }) + chunk({ reasoning_content: ' think' }) + chunk({ content: 'Hi' }) + chunk({ content: ' there' }) + finish() + 'data: [DONE]\n\n',
  'a leading <think> in the text': chunk({ content: '<th' }) + chunk({ content: 'ink>plan' }) + chunk({ content: '</think>\n\n' }) + chunk({ content: 'Answer' }) + chunk({ content: ' more' }) + finish() + 'data: [DONE]\n\n',
  'chunks that differ in their obfuscation (OpenAI)': texts.map((t, i) => chunk({ content: t }, { obfuscation: 'x'.repeat(i) })).join('') + finish() + 'data: [DONE]\n\n',
  'ids, creation times and builds that change, and a nested id': chunk({ content: 'a' }, { system_fingerprint: 'fp_1' }) + chunk({ content: 'b' }, { system_fingerprint: 'fp_1' }) + chunk({ content: 'c' }, { id: 'other', created: 1700000000, system_fingerprint: 'fp_2' }) + chunk({ content: 'd' }, { created: 0 }) + chunk({ content: 'e' }, { created: -1 }) + chunk({ content: 'f' }, { created: 1.5 }) + chunk({ content: 'g' }, { created: 12345678901234567 }) + chunk({ content: 'h' }, { id: 7 }) + chunk({ content: 'i' }, { id: 'a\\"b' }) + chunk({ content: 'j' }, { x_groq: { id: 'req_1' } }) + chunk({ content: 'k' }) + finish() + 'data: [DONE]\n\n',
  'an error in the middle': chunk({ content: 'a' }) + chunk({ content: 'b' }) + chunk({ content: 'c' }) + 'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n' + chunk({ content: 'd' }),
  'an empty data line': chunk({ content: 'a' }) + chunk({ content: 'b' }) + 'data:\n\n' + chunk({ content: 'c' }),
  'no end': chunk({ content: 'a' }) + chunk({ content: 'b' }) + chunk({ content: 'c' }).slice(0, -1),
  'tool calls after text': chunk({ content: 'a' }) + chunk({ content: 'b' }) + chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x"' } }] }) + chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }) + finish('tool_calls') + 'data: [DONE]\n\n',
  'invalid UTF-8 in a text': concat(chunk({ content: 'a' }) + chunk({ content: 'b' }) + 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"', [0xe4, 0xb8, 0x41, 0xff], '"},"finish_reason":null}]}\n\n' + chunk({ content: 'c' }) + finish() + 'data: [DONE]\n\n'),
};

function concat(...parts: Array<string | number[]>): Uint8Array {
  return concatBytes(...parts.map((p) => (typeof p === 'string' ? encoder.encode(p) : new Uint8Array(p))));
}

describe('the OpenAI stream read from its bytes', () => {
  it.each(Object.entries(streams))('%s: the same events, and the same bytes to every family, as parsing every event, however it is cut', (_name, stream) => {
    expectSameWire(typeof stream === 'string' ? encoder.encode(stream) : stream, byteReader, parsedReader, expect);
  });

  // One cache for every stream and cut, in turn: each reader starts with the template the one
  // before it left, learned from this stream or from another.
  const templates = new TemplateCache<ChunkTemplate>();
  it.each(Object.entries(streams))('%s: the same, starting with the template an earlier stream left', (_name, stream) => {
    const withTemplates = () => stageOf(readOpenAIStream(req, 'oss', templates))!;
    expectSameWire(typeof stream === 'string' ? encoder.encode(stream) : stream, withTemplates, parsedReader, expect);
  });

  it("starts with the template its model's last stream learned, whatever that stream's id and time", () => {
    const cache = new TemplateCache<ChunkTemplate>();
    const reader = (model: string) => stageOf(readOpenAIStream({ ...req, model }, 'oss', cache))!;
    // Reasoning: the first content chunk of a stream is read as text in any case, in case it opens a <think> block.
    const stream = (id: string, created: number) =>
      chunk({ role: 'assistant', content: '' }, { id, created }) + ['a', 'b', 'c'].map((t) => chunk({ reasoning_content: t, content: null }, { id, created })).join('') + finish() + 'data: [DONE]\n\n';
    const read = (model: string, id: string, created: number) => readTextDeltas(reader(model), encoder.encode(stream(id, created)), 1500, 'reasoning-delta');
    expect(read('m', 'chatcmpl-1', 1700000000)).toEqual(['text', 'span', 'span']);
    expect(read('m', 'chatcmpl-2', 1700000123)).toEqual(['span', 'span', 'span']);
    expect(read('other', 'chatcmpl-3', 1700000456)).toEqual(['text', 'span', 'span']);
  });

  it('reads the chunks of OpenAI itself from their bytes, whose obfuscation changes every time', () => {
    const deltas = readTextDeltas(byteReader(), encoder.encode(streams['chunks that differ in their obfuscation (OpenAI)'] as string), 1500);
    expect(deltas).toEqual(['text', ...texts.slice(1).map(() => 'span')]);
  });

  it('reads chunks from their bytes when the JSON before the text holds characters outside ASCII', () => {
    const stream = encoder.encode(['a', ' b', ' c', ' d'].map((t) => chunk({ content: t }, { id: 'c-é', model: 'modèle-中文-😀' })).join('') + finish() + 'data: [DONE]\n\n');
    expectSameWire(stream, byteReader, parsedReader, expect);
    expect(readTextDeltas(byteReader(), stream, 1500)).toEqual(['text', 'span', 'span', 'span']);
  });

  it('reads most text chunks from their bytes, and sends their text on undecoded', () => {
    const deltas = readTextDeltas(byteReader(), encoder.encode(streams['the bench stream'] as string), 1500);
    // All but the first text chunk (whose template is learned from it).
    expect(deltas.slice(1)).toEqual(deltas.slice(1).map(() => 'span'));
    expect(deltas.length).toBeGreaterThan(20);
  });

  it('reads them from their bytes with CRLF line ends too (as Google and some hosts send)', () => {
    const deltas = readTextDeltas(byteReader(), encoder.encode(streams['the bench stream with CRLF line ends'] as string), 1500);
    expect(deltas.slice(1)).toEqual(deltas.slice(1).map(() => 'span'));
    expect(deltas.length).toBeGreaterThan(20);
  });

  it('reads reasoning chunks from their bytes too', () => {
    const stream = streams['reasoning of every kind, then text'] as string;
    const events: StreamEvent[] = [];
    const reader = byteReader();
    reader.push(encoder.encode(stream), (e) => events.push(e));
    const reasoning = events.filter((e) => e.type === 'reasoning-delta');
    expect(reasoning.map((e) => e.text)).toEqual(texts);
    expect(reasoning.filter((e) => e.span).length).toBe(texts.length - 1);
  });

  it('leaves text with escapes JSON.stringify would not write, and text that may open <think>, to the parser', () => {
    const read = (stream: string) => readTextDeltas(byteReader(), encoder.encode(stream), stream.length);
    expect(read(streams['escapes JSON.stringify would not write'] as string)).toEqual(['text', 'span', 'text', 'span']);
    // "Answer" follows </think>, whose blank line is trimmed from the text after it.
    expect(read(streams['a leading <think> in the text'] as string)).toEqual(['text', 'span']);
  });
});
