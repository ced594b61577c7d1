import { describe, expect, it } from 'vitest';
import { crc32, type EventStreamFrame, readEventStream } from '../../../../core/upstreams/bedrock/event-stream.ts';
import { concatBytes, encodeFrame, eventFrame, exceptionFrame, splitAt } from '../../../helpers/bedrock-frames.ts';
import { collect, fromArray } from '../../../helpers/streams.ts';

const text = (frame: EventStreamFrame) => ({ headers: frame.headers, body: new TextDecoder().decode(frame.body) });

async function decode(chunks: Uint8Array[]) {
  return (await collect(fromArray(chunks).pipeThrough(readEventStream()))).map(text);
}

const EVENT_HEADERS = { ':message-type': 'event', ':content-type': 'application/json' };
const start = eventFrame('messageStart', { role: 'assistant' });
const delta = eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hé ✓' }, p: 'abcdef' });

describe('readEventStream', () => {
  it('decodes one frame per chunk', async () => {
    expect(await decode([start, delta])).toEqual([
      { headers: { ...EVENT_HEADERS, ':event-type': 'messageStart' }, body: '{"role":"assistant"}' },
      { headers: { ...EVENT_HEADERS, ':event-type': 'contentBlockDelta' }, body: '{"contentBlockIndex":0,"delta":{"text":"Hé ✓"},"p":"abcdef"}' },
    ]);
  });

  it('waits for a frame split across three chunks (inside the prelude and inside the payload)', async () => {
    const pieces = splitAt(delta, 2, 30);
    expect(pieces).toHaveLength(3);
    expect(await decode(pieces)).toEqual(await decode([delta]));
  });

  it('decodes two frames that arrive in one chunk, and a chunk that ends mid-way through the next', async () => {
    const all = concatBytes(start, delta, start);
    const cut = start.length + delta.length + 5;
    expect(await decode(splitAt(all, cut))).toEqual(await decode([start, delta, start]));
  });

  it('decodes a frame of several MiB arriving in small reads, joined once it is whole', async () => {
    const big = eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'x'.repeat(6 * 1024 * 1024) } });
    const all = concatBytes(start, big, delta);
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < all.length; at += 16 * 1024) pieces.push(all.slice(at, at + 16 * 1024));
    expect(await decode(pieces)).toEqual(await decode([start, big, delta]));
  });

  it('decodes byte-by-byte delivery', async () => {
    const all = concatBytes(start, delta);
    const bytes = [...all].map((b) => Uint8Array.of(b));
    expect(await decode(bytes)).toEqual(await decode([start, delta]));
  });

  it('reads every header value type the format defines', async () => {
    const frame = encodeFrame({
      t: { type: 'boolean', value: true },
      f: { type: 'boolean', value: false },
      b: { type: 'byte', value: -3 },
      s: { type: 'short', value: 300 },
      i: { type: 'integer', value: -70000 },
      bin: { type: 'binary', value: Uint8Array.of(1, 2, 3) },
      ts: { type: 'timestamp', value: new Date(1700000000123) },
      u: { type: 'uuid', value: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0' },
    });
    const [decoded] = await collect(fromArray([frame]).pipeThrough(readEventStream()));
    expect(decoded!.headers).toEqual({
      t: true,
      f: false,
      b: -3,
      s: 300,
      i: -70000,
      bin: Uint8Array.of(1, 2, 3),
      ts: 1700000000123,
      u: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
    });
  });

  it('turns a corrupted message CRC into a final error frame after the good frames, and refuses the rest', async () => {
    const bad = delta.slice();
    bad[bad.length - 10]! ^= 0xff; // payload byte: only the message CRC notices
    expect(await decode([concatBytes(start, bad), start])).toEqual([
      { headers: { ...EVENT_HEADERS, ':event-type': 'messageStart' }, body: '{"role":"assistant"}' },
      {
        headers: { ':message-type': 'error', ':error-code': 'MalformedEventStream', ':error-message': 'Bedrock sent a malformed event stream: message CRC mismatch' },
        body: '',
      },
    ]);
  });

  it('reports a corrupted prelude CRC', async () => {
    const bad = delta.slice();
    bad[9]! ^= 0x01;
    const [frame] = await decode([bad]);
    expect(frame!.headers[':error-message']).toBe('Bedrock sent a malformed event stream: prelude CRC mismatch');
  });

  it('reports an impossible length instead of waiting forever', async () => {
    const frames = await decode([Uint8Array.of(0, 0, 0, 3, 0, 0, 0, 0)]);
    expect(frames).toEqual([
      { headers: { ':message-type': 'error', ':error-code': 'MalformedEventStream', ':error-message': 'Bedrock sent a malformed event stream: a frame declares an impossible length (3 bytes)' }, body: '' },
    ]);
  });

  it('reports a stream that ends inside a frame', async () => {
    const frames = await decode([start, delta.slice(0, 20)]);
    expect(frames.map((f) => f.headers[':error-message'] ?? f.headers[':event-type'])).toEqual([
      'messageStart',
      'Bedrock sent a malformed event stream: the stream ended inside a frame (20 bytes left)',
    ]);
  });

  it('cancels the source after a corrupt frame', async () => {
    let cancelled = false;
    const bad = exceptionFrame('throttlingException', { message: 'x' });
    bad[bad.length - 1]! ^= 1;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bad);
      },
      cancel() {
        cancelled = true;
      },
    });
    await collect(source.pipeThrough(readEventStream()));
    // The pipe notices the refused input one task later.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cancelled).toBe(true);
  });

  it('computes the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });
});
