import { describe, expect, it } from 'vitest';
import { createUtf8StreamDecoder } from '../../../core/http/utf8-stream.ts';
import { concatBytes } from '../../helpers/bedrock-frames.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** What a streaming TextDecoder gives for the same chunks. */
function readReference(chunks: Uint8Array[]): string {
  // The SSE parser after it drops the stream's own byte-order mark; the decoder keeps every U+FEFF.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return chunks.map((c) => decoder.decode(c, { stream: true })).join('') + decoder.decode();
}

function readSplit(chunks: Uint8Array[]): string {
  const decoder = createUtf8StreamDecoder();
  return chunks.map((c) => decoder.decode(c)).join('') + decoder.end();
}

const SAMPLES: Array<[string, Uint8Array]> = [
  ['ASCII', encode('data: {"text":"plain"}\n\n')],
  // A U+FEFF that starts a chunk is text: a default decoder, called per chunk, dropped it.
  ['U+FEFF in the text', encode('\ufeffdata: {"text":"\ufeffa"}\n\n')],
  ['two-, three- and four-byte characters', encode('é → 日本 🙂 ok')],
  // A lone continuation byte, a lead without its continuations, an overlong lead, bytes never valid.
  ['invalid sequences', concatBytes(encode('a'), new Uint8Array([0x80, 0xe2, 0x82, 0x41, 0xc0, 0xaf, 0xff, 0xf0, 0x9f]), encode('b'))],
];

describe('createUtf8StreamDecoder', () => {
  it.each(SAMPLES)('decodes %s like a streaming TextDecoder at every split point', (_name, bytes) => {
    for (let i = 0; i <= bytes.byteLength; i++) {
      const chunks = [bytes.subarray(0, i), bytes.subarray(i)];
      expect(readSplit(chunks), `split at ${i}`).toBe(readReference(chunks));
    }
  });

  it.each(SAMPLES)('decodes %s like a streaming TextDecoder one byte at a time', (_name, bytes) => {
    const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
    expect(readSplit(chunks)).toBe(readReference(chunks));
  });

  it('holds back only a character cut by the chunk boundary', () => {
    const decoder = createUtf8StreamDecoder();
    const smile = encode('🙂');
    expect(decoder.decode(concatBytes(encode('ab'), smile.subarray(0, 2)))).toBe('ab');
    expect(decoder.decode(smile.subarray(2))).toBe('🙂');
    expect(decoder.end()).toBe('');
  });

  it('flushes a sequence the stream ends inside as U+FFFD', () => {
    const decoder = createUtf8StreamDecoder();
    expect(decoder.decode(encode('日').subarray(0, 2))).toBe('');
    expect(decoder.end()).toBe('\uFFFD');
    expect(decoder.end()).toBe('');
  });
});
