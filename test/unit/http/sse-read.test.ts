import { describe, expect, it } from 'vitest';
import { createSseByteReader, type SseMessageReader } from '../../../core/http/sse-read-bytes.ts';
import { createSseReader, MAX_SSE_EVENT_BYTES, type SseMessage } from '../../../core/http/sse-read.ts';

const encode = (text: string) => new TextEncoder().encode(text);

function readAll(chunks: Uint8Array[]): SseMessage[] {
  const reader = createSseReader();
  const out: SseMessage[] = [];
  const emit = (message: SseMessage) => out.push(message);
  for (const chunk of chunks) reader.push(chunk, emit);
  reader.end(emit);
  return out;
}

/** The stream cut in two at every byte, and in three around every line end. */
function* cuts(bytes: Uint8Array): Generator<Uint8Array[]> {
  for (let i = 0; i <= bytes.length; i++) yield [bytes.subarray(0, i), bytes.subarray(i)];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a && bytes[i] !== 0x0d) continue;
    for (const j of [i + 1, i + 2, i + 7]) if (j <= bytes.length) yield [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
  }
}

const streams: Record<string, string> = {
  'LF, events named and not, a comment, two data lines': 'event: message_start\ndata: {"a":1}\n\n: keep-alive\n\ndata: {"b":"two"}\n\nevent: x\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n',
  CRLF: 'event: ping\r\ndata: {"type":"ping"}\r\n\r\ndata: {"n":"ünïcödé ✓"}\r\n\r\n',
  CR: 'data: {"cr":1}\r\rdata: {"cr":2}\r\r',
  'a last event without its blank line': 'data: {"a":1}\n\ndata: {"tail":true}',
  // The stream's own byte-order mark goes; a U+FEFF in its text stays, wherever a read starts.
  'a byte-order mark, and U+FEFF in the text': '\ufeffdata: {"a":1}\n\ndata: {"t":"\ufeffb"}\n\n',
  'multi-byte text cut anywhere': `data: {"t":"${'日本語 😀 '.repeat(20)}"}\n\ndata: {"t":"é"}\n\n`,
};

describe('createSseReader', () => {
  for (const [name, text] of Object.entries(streams)) {
    it(`reads the same messages however the stream is cut: ${name}`, () => {
      const bytes = encode(text);
      const whole = readAll([bytes]);
      expect(whole.length).toBeGreaterThan(1);
      for (const chunks of cuts(bytes)) expect(readAll(chunks), chunks.map((c) => c.length).join('+')).toEqual(whole);
      expect(readAll(Array.from(bytes, (b) => Uint8Array.of(b)))).toEqual(whole);
    });
  }

  it('reads data lines as the SSE rules say', () => {
    expect(readAll([encode(streams['LF, events named and not, a comment, two data lines']!)])).toEqual([
      { event: 'message_start', data: '{"a":1}' },
      { data: '{"b":"two"}' },
      { event: 'x', data: 'line one\nline two' },
      { data: '[DONE]' },
    ]);
  });
});

describe('createSseReader and U+FEFF', () => {
  it("drops only the stream's own byte-order mark", () => {
    const bytes = encode('\ufeffdata: {"a":1}\n\ndata: {"t":"\ufeffb"}\n\n');
    expect(readAll([bytes])).toEqual([{ data: '{"a":1}' }, { data: '{"t":"\ufeffb"}' }]);
    const at = bytes.indexOf(0xef, 3);
    expect(readAll([bytes.subarray(0, at), bytes.subarray(at)])).toEqual(readAll([bytes]));
  });
});

describe('an event that never ends', () => {
  const big = (n: number) => encode(`data: {"t":"${'x'.repeat(n)}`);
  const messageReader = (): SseMessageReader<SseMessage> => ({ takes: () => false, takeEvent: () => -1, push: (m, emit) => emit(m), end: () => {} });

  it('fails the stream once the parser holds more of it than its limit, and not before', () => {
    const reader = createSseReader(1000);
    const out: SseMessage[] = [];
    reader.push(encode(`data: ${'y'.repeat(900)}\n\n`), (m) => out.push(m));
    expect(out).toHaveLength(1);
    expect(() => reader.push(big(2000), () => {})).toThrow('Upstream sent a stream event over 1000 bytes; the stream was cut there');
    expect(MAX_SSE_EVENT_BYTES).toBe(64 * 1024 * 1024);
  });

  it('fails the stream once the byte cutter holds more of it than its limit, and after a CR sent the rest to the parser', () => {
    const cutter = createSseByteReader(messageReader(), 1000);
    const out: SseMessage[] = [];
    cutter.push(encode(`data: ${'y'.repeat(900)}\n\n`), (m) => out.push(m));
    cutter.push(big(500), () => {});
    expect(out).toHaveLength(1);
    expect(() => cutter.push(big(600), () => {})).toThrow(isGatewayErrorWith('Upstream sent a stream event over 1000 bytes; the stream was cut there'));
    const parsed = createSseByteReader(messageReader(), 1000);
    parsed.push(encode('data: {"cr":1}\r\r'), () => {});
    expect(() => parsed.push(big(2000), () => {})).toThrow('over 1000 bytes');
  });
});

/** A matcher for a GatewayError of kind 'upstream' (a 502 before the stream starts, the family's error frame after). */
function isGatewayErrorWith(message: string) {
  return expect.objectContaining({ kind: 'upstream', message });
}
