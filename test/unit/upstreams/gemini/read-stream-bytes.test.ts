import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSseReader } from '../../../../core/http/sse-read.ts';
import { pipeStages, type Stage, stageOf } from '../../../../core/http/stage.ts';
import type { StreamEvent } from '../../../../core/ir.ts';
import { TemplateCache } from '../../../../core/http/template-cache.ts';
import type { GeminiChunkTemplate } from '../../../../core/upstreams/gemini/chunk-template.ts';
import { createGeminiMessageReader, readGeminiStream } from '../../../../core/upstreams/gemini/read-stream.ts';
import { concatBytes } from '../../../helpers/bedrock-frames.ts';
import { expectSameWire, readTextDeltas } from '../../../helpers/stream-wire.ts';

const encoder = new TextEncoder();
const opts = { provider: 'google', model: 'gemini-fallback' };

/** The reader as it was before chunks were read from their bytes: every chunk decoded and parsed. */
const parsedReader = (): Stage<Uint8Array, StreamEvent> => pipeStages(createSseReader(), createGeminiMessageReader(opts));
const byteReader = (): Stage<Uint8Array, StreamEvent> => stageOf(readGeminiStream(opts))!;

type Part = Record<string, unknown>;
let tokens = 0;
/** A chunk as Google sends it (CRLF, one line of JSON), its usage counting up. */
const chunk = (parts: Part[], more: { candidate?: Record<string, unknown>; top?: Record<string, unknown>; usage?: boolean } = {}) => {
  tokens += 7;
  const usage = more.usage === false ? {} : { usageMetadata: { promptTokenCount: 312, candidatesTokenCount: tokens, totalTokenCount: 312 + tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 312 }] } };
  return `data: ${JSON.stringify({ candidates: [{ content: { parts, role: 'model' }, index: 0, ...more.candidate }], ...usage, modelVersion: 'gemini-2.5-flash', responseId: 'r7Xy9q0', ...more.top })}\r\n\r\n`;
};
const text = (t: string, more?: Parameters<typeof chunk>[1]) => chunk([{ text: t }], more);
const thought = (t: string) => chunk([{ text: t, thought: true }]);
const last = (t = '') => chunk([{ text: t }], { candidate: { finishReason: 'STOP' } });
const texts = ['Hello', ' "quoted"', ' line\nbreak', ' tab\t', ' é 中文 😀', ' \\', '\ufeffbom', ' \u2028', ' ctl\u0001', ' 0123 digits 456'];

const fixtureDir = fileURLToPath(new URL('../../../fixtures/gemini/', import.meta.url));
const streams: Record<string, string | Uint8Array> = {
  ...Object.fromEntries(readdirSync(fixtureDir).filter((f) => f.endsWith('.sse')).map((f) => [f, readFileSync(fixtureDir + f, 'utf8')])),
  'the bench stream': readFileSync(fileURLToPath(new URL('../../../../bench/upstream/gemini-stream.sse', import.meta.url)), 'utf8'),
  'the bench stream with LF line ends': readFileSync(fileURLToPath(new URL('../../../../bench/upstream/gemini-stream.sse', import.meta.url)), 'utf8').replaceAll('\r\n', '\n'),
  'texts of every kind': texts.map((t) => text(t)).join('') + last(),
  'thoughts of every kind, an empty thought, then text': texts.map((t) => thought(t)).join('') + thought('') + thought('more') + texts.map((t) => text(t)).join('') + text('') + text('end') + last(),
  'usage counts growing a digit, and going back to 0': text('a') + text('b') + text('c').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":9') + text('d').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":10') + text('e').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":0') + text('f') + last(),
  'integers JSON does not allow, and numbers that are not integers': text('a') + text('b') + text('c').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":012') + text('d') + text('e').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":-3') + text('f').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":1.5') + text('g').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":2e3') + text('h') + last(),
  'a long run of digits': text('a') + text('b') + text('c').replace(/"candidatesTokenCount":\d+/, '"candidatesTokenCount":12345678901234567890') + text('d') + last(),
  'strings that change: the model, the response id, a digit in the id': text('a') + text('b') + text('c', { top: { modelVersion: 'gemini-2.5-pro' } }) + text('d') + text('e', { top: { responseId: 'r7Xy9q1' } }) + text('f') + last(),
  'keys that come and go': text('a') + text('b', { usage: false }) + text('c') + text('d', { candidate: { citationMetadata: { citationSources: [{ startIndex: 1, endIndex: 9 }] } } }) + text('e') + text('f', { top: { promptFeedback: { blockReason: 'OTHER' } } }) + text('g') + last(),
  'two parts, a signed part, a function call, and a finish with text': text('a') + text('b') + chunk([{ text: 'c' }, { text: 'd' }]) + text('e') + chunk([{ text: 'f', thoughtSignature: 'c2ln' }]) + text('g') + chunk([{ functionCall: { name: 'f', args: { x: 1 } } }]) + text('h') + text('i') + last('fin'),
  'signed texts and thoughts in a row': text('a') + chunk([{ text: 'b', thoughtSignature: 'c2ln' }]) + chunk([{ text: 'c', thoughtSignature: 'c2ln' }]) + chunk([{ text: 'd', thought: true, thoughtSignature: 'c2ln' }]) + chunk([{ text: 'e', thought: true, thoughtSignature: 'c2ln' }]) + text('f') + last(),
  'escapes JSON.stringify would not write': text('a') + text('b') + text('<b>').replace('<b>', '\\u003cb\\u003e') + text('c') + text('é/').replace('é/', '\\u00e9\\/') + text('d') + last(),
  'LF and CRLF line ends mixed, and CR from the middle on': text('a') + text('b').replace('\r\n\r\n', '\n\n') + text('c').replace('\r\n\r\n', '\n\r\n') + text('d') + text('e').replace('\r\n\r\n', '\r\r') + text('f') + last(),
  'an error in the middle': text('a') + text('b') + text('c') + 'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n' + text('d'),
  'a chunk that is not JSON': text('a') + text('b') + text('c').replace('"usageMetadata":{', '"usageMetadata":{{') + text('d'),
  'a chunk without usage after chunks read from their bytes, then the end': text('a') + text('b') + text('c') + chunk([{ text: 'd' }, { text: 'e' }], { usage: false }),
  'cut short': text('a') + text('b') + text('c').slice(0, -3),
  'invalid UTF-8 in a text': concatBytes(encoder.encode(text('a') + text('b') + 'data: {"candidates":[{"content":{"parts":[{"text":"'), new Uint8Array([0xe4, 0xb8, 0x41, 0xff]), encoder.encode('"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r7Xy9q0"}\r\n\r\n' + text('c') + last())),
};

describe('the Gemini stream read from its bytes', () => {
  it.each(Object.entries(streams))('%s: the same events, and the same bytes to every family, as parsing every chunk, however it is cut', (_name, stream) => {
    expectSameWire(typeof stream === 'string' ? encoder.encode(stream) : stream, byteReader, parsedReader, expect);
  });

  // One cache for every stream and cut, in turn: each reader starts with the template the one
  // before it left, learned from this stream or from another.
  const templates = new TemplateCache<GeminiChunkTemplate>();
  it.each(Object.entries(streams))('%s: the same, starting with the template an earlier stream left', (_name, stream) => {
    const withTemplates = () => stageOf(readGeminiStream({ ...opts, templates }))!;
    expectSameWire(typeof stream === 'string' ? encoder.encode(stream) : stream, withTemplates, parsedReader, expect);
  });

  it("starts with the template its model's last stream learned, whatever that stream's response id", () => {
    const cache = new TemplateCache<GeminiChunkTemplate>();
    const reader = (model = opts.model) => stageOf(readGeminiStream({ ...opts, model, templates: cache }))!;
    // A first chunk of two parts teaches nothing, so alone a stream parses its second chunk too.
    const stream = chunk([{ text: 'a' }, { text: 'b' }]) + text('c') + text('d') + text('e') + last();
    expect(readTextDeltas(reader(), encoder.encode(stream), 1500)).toEqual(['text', 'text', 'text', 'span', 'span']);
    const next = stream.replaceAll('r7Xy9q0', 'a-longer-response-id-42');
    expect(next).not.toEqual(stream);
    expect(readTextDeltas(reader(), encoder.encode(next), 1500)).toEqual(['text', 'text', 'span', 'span', 'span']);
    expect(readTextDeltas(reader('gemini-other'), encoder.encode(next), 1500)).toEqual(['text', 'text', 'text', 'span', 'span']);
  });

  it('reads most text chunks from their bytes, CRLF as Google sends them or LF', () => {
    for (const name of ['the bench stream', 'the bench stream with LF line ends']) {
      const deltas = readTextDeltas(byteReader(), encoder.encode(streams[name] as string), 1500);
      // All but the first text chunk (whose template is learned from it) and the last, which
      // carries the finish reason.
      expect(deltas).toEqual(['text', ...deltas.slice(2).map(() => 'span'), 'text']);
      expect(deltas.length).toBeGreaterThan(20);
    }
  });

  it('reads thoughts and text of every kind from their bytes, each after its first', () => {
    const stream = encoder.encode(streams['thoughts of every kind, an empty thought, then text'] as string);
    expect(readTextDeltas(byteReader(), stream, 1500, 'reasoning-delta')).toEqual(['text', ...texts.slice(1).map(() => 'span'), 'span']);
    // The empty text is no delta, and the last chunk's (with the finish reason) is empty too.
    expect(readTextDeltas(byteReader(), stream, 1500, 'text-delta')).toEqual(['text', ...texts.slice(1).map(() => 'span'), 'span']);
  });
});
