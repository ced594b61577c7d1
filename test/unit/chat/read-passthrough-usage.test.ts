import { describe, expect, it } from 'vitest';
import { readPassthroughUsage, readStreamUsage, tapPassthroughUsage } from '../../../core/chat/read-passthrough-usage.ts';
import { streamOfReader, type ChunkReader } from '../../../core/http/reply.ts';
import type { Usage } from '../../../core/ir.ts';
import { bytesInPieces, collect, fromArray, loadFixture } from '../../helpers/streams.ts';

const ANTHROPIC_SSE =
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":50,"cache_read_input_tokens":7,"cache_creation_input_tokens":3,"output_tokens":1}}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the \\"input_tokens\\": 999 in text"}}\n\n' +
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}\n\n';

describe('tapPassthroughUsage', () => {
  it('relays the bytes unchanged and reads the usage, also across chunk boundaries', async () => {
    const reports: Array<[Usage | undefined, boolean]> = [];
    const pieces = bytesInPieces(ANTHROPIC_SSE, 7);
    const out = await collect<Uint8Array>(streamOfReader(tapPassthroughUsage(fromArray(pieces).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
    expect(new TextDecoder().decode(Buffer.concat(out))).toBe(ANTHROPIC_SSE);
    expect(reports).toEqual([[{ inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
  });

  it('finds the counters whatever the chunk size, and never inside escaped text', async () => {
    for (let size = 1; size <= 40; size++) {
      const reports: Array<[Usage | undefined, boolean]> = [];
      await collect(streamOfReader(tapPassthroughUsage(fromArray(bytesInPieces(ANTHROPIC_SSE, size)).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
      expect(reports, `pieces of ${size}`).toEqual([[{ inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
    }
  });

  it('a first chunk holding all of message_start is read in place: a short stream whole, or cut after its first event', async () => {
    // Newer answers repeat input_tokens in message_delta: the later count still wins when the
    // tail window holds message_start again.
    const wire = ANTHROPIC_SSE.replace('"usage":{"output_tokens":42}', '"usage":{"input_tokens":51,"output_tokens":42}');
    const first = wire.indexOf('\n\n') + 2;
    for (const pieces of [[wire], [wire.slice(0, first), wire.slice(first)], [wire.slice(0, first + 5), wire.slice(first + 5)]]) {
      const reports: Array<[Usage | undefined, boolean]> = [];
      const out = await collect<Uint8Array>(streamOfReader(tapPassthroughUsage(fromArray(pieces.map((p) => new TextEncoder().encode(p))).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
      expect(Buffer.concat(out).toString('utf8')).toBe(wire);
      expect(reports, `pieces of ${pieces.map((p) => p.length)}`).toEqual([[{ inputTokens: 51, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
    }
    const reports: Array<[Usage | undefined, boolean]> = [];
    await collect(streamOfReader(tapPassthroughUsage(fromArray([new TextEncoder().encode(wire.slice(0, first))]).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
    expect(reports).toEqual([[{ inputTokens: 50, outputTokens: 1, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
  });

  it('reads pretty-printed JSON (spaces and newlines around the colon) and ignores look-alike names', () => {
    const pretty = JSON.stringify({ usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 4, totalTokenCount: 13, xpromptTokenCount: 77 } }, null, 2);
    expect(readPassthroughUsage(pretty, 'gemini')).toEqual({ inputTokens: 9, outputTokens: 4 });
    expect(readPassthroughUsage('{"usage":{"input_tokens" :\n 12,"output_tokens":"7","my_output_tokens":99}}', 'anthropic')).toEqual({ inputTokens: 12, outputTokens: 0 });
  });

  it('a long stream: counts from the head (message_start) and the tail (message_delta), nothing scanned in between is needed', async () => {
    const middle = Array.from({ length: 400 }, (_, i) =>
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"chunk ${i} \\"output_tokens\\": 7"}}\n\n`).join('');
    const wire = ANTHROPIC_SSE.split('\n\n')[0] + '\n\n' + middle + ANTHROPIC_SSE.split('\n\n').slice(1).join('\n\n');
    expect(wire.length).toBeGreaterThan(40_000);
    for (const size of [1, 13, 700, 4096, wire.length]) {
      const reports: Array<[Usage | undefined, boolean]> = [];
      const out = await collect<Uint8Array>(streamOfReader(tapPassthroughUsage(fromArray(bytesInPieces(wire, size)).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
      expect(Buffer.concat(out).toString('utf8')).toBe(wire);
      expect(reports, `pieces of ${size}`).toEqual([[{ inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
    }
  });

  it('a long stream of multi-byte text: the marks are found by byte, and the counts still read', async () => {
    const middle = Array.from({ length: 200 }, (_, i) =>
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${i} ünïcödé 漢字 🙂 \\"usage\\""}}\n\n`).join('');
    const events = ANTHROPIC_SSE.split('\n\n');
    const wire = events[0] + '\n\n' + middle + events.slice(1).join('\n\n');
    for (const size of [1, 5, 333, 2048, wire.length]) {
      const reports: Array<[Usage | undefined, boolean]> = [];
      const out = await collect<Uint8Array>(streamOfReader(tapPassthroughUsage(fromArray(bytesInPieces(wire, size)).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
      expect(Buffer.concat(out).toString('utf8')).toBe(wire);
      expect(reports, `pieces of ${size}`).toEqual([[{ inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
    }
  });

  it('a long stream with a ping before message_start, or CRLF framing: the head still gives the input counts', async () => {
    const events = ANTHROPIC_SSE.split('\n\n').filter(Boolean);
    const middle = Array.from({ length: 100 }, (_, i) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${i}"}}`);
    const lf = ['event: ping\ndata: {"type": "ping"}', events[0]!, ...middle, ...events.slice(1)].join('\n\n') + '\n\n';
    const crlf = lf.replaceAll('\n', '\r\n');
    for (const wire of [lf, crlf]) {
      for (const size of [5, 300, wire.length]) {
        const reports: Array<[Usage | undefined, boolean]> = [];
        await collect(streamOfReader(tapPassthroughUsage(fromArray(bytesInPieces(wire, size)).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
        expect(reports, `pieces of ${size}`).toEqual([[{ inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
      }
    }
  });

  it('never takes a number cut off at the end of the head window', async () => {
    // message_start padded so that input_tokens' digits straddle byte 2048; the tail repeats only output_tokens.
    const before = 'event: message_start\ndata: {"type":"message_start","message":{"pad":"';
    const field = '","usage":{"input_tokens":';
    const pad = 'x'.repeat(2048 - before.length - field.length - 2);
    const wire = `${before}${pad}${field}1234,"output_tokens":1}}}\n\n` + 'event: ping\ndata: {"type":"ping"}\n\n'.repeat(200) +
      'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n';
    const reports: Array<[Usage | undefined, boolean]> = [];
    await collect(streamOfReader(tapPassthroughUsage(fromArray(bytesInPieces(wire, 512)).getReader(), 'anthropic', (u, a) => reports.push([u, a]))));
    expect(reports[0]![0]!.inputTokens).not.toBe(12);
    expect(reports[0]![0]!.outputTokens).toBe(9);
  });

  it('Gemini: the last chunk carries the final cumulative counts, however long the stream', async () => {
    const chunk = (n: number) =>
      `data: {"candidates":[{"content":{"parts":[{"text":"${'word '.repeat(50)}${n}"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":${n},"thoughtsTokenCount":5,"cachedContentTokenCount":40},"modelVersion":"gemini-2.5-flash","responseId":"r"}\r\n\r\n`;
    const wire = Array.from({ length: 60 }, (_, i) => chunk(i + 1)).join('');
    for (const size of [3, 1000, wire.length]) {
      const reports: Array<[Usage | undefined, boolean]> = [];
      await collect(streamOfReader(tapPassthroughUsage(fromArray(bytesInPieces(wire, size)).getReader(), 'gemini', (u, a) => reports.push([u, a]))));
      expect(reports, `pieces of ${size}`).toEqual([[{ inputTokens: 60, outputTokens: 65, cacheReadTokens: 40, reasoningTokens: 5 }, false]]);
    }
  });

  it('Gemini counts: prompt includes cached tokens, candidates exclude thoughts', async () => {
    const reports: Array<[Usage | undefined, boolean]> = [];
    const body = 'data: {"usageMetadata":{"promptTokenCount":100,"cachedContentTokenCount":40,"candidatesTokenCount":10,"thoughtsTokenCount":5}}\n\n';
    await collect(streamOfReader(tapPassthroughUsage(fromArray(bytesInPieces(body, 11)).getReader(), 'gemini', (u, a) => reports.push([u, a]))));
    expect(reports).toEqual([[{ inputTokens: 60, outputTokens: 15, cacheReadTokens: 40, reasoningTokens: 5 }, false]]);
  });

  it('chunks taken without a read (readBuffered) are tapped like read ones, then reads go on', async () => {
    const pieces = bytesInPieces(ANTHROPIC_SSE, 40);
    for (const cut of [0, 1, 3, pieces.length - 1, pieces.length]) {
      const queue = pieces.slice();
      let taken = 0;
      // A source with `cut` chunks already here, and the rest still to read.
      const source: ChunkReader & { readBuffered(): { chunks: Uint8Array[]; done: boolean } } = {
        readBuffered() {
          const chunks = queue.splice(0, cut - taken);
          taken += chunks.length;
          return { chunks, done: queue.length === 0 };
        },
        read: async () => (queue.length ? { done: false as const, value: queue.shift()! } : { done: true as const, value: undefined }),
        cancel: async () => {},
      };
      const reports: Array<[Usage | undefined, boolean]> = [];
      const tap = tapPassthroughUsage(source, 'anthropic', (u, a) => reports.push([u, a]));
      const ahead = tap.readBuffered!()!;
      expect(ahead.chunks.length, `cut at ${cut}`).toBe(cut);
      expect(ahead.done).toBe(cut === pieces.length);
      const rest = ahead.done ? [] : await collect<Uint8Array>(streamOfReader(tap));
      expect(Buffer.concat([...ahead.chunks, ...rest]).toString('utf8')).toBe(ANTHROPIC_SSE);
      expect(reports, `cut at ${cut}`).toEqual([[{ inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);
    }
  });

  it('readBuffered says it cannot tell (undefined) when its source cannot', () => {
    const tap = tapPassthroughUsage(fromArray([new Uint8Array([1])]).getReader(), 'anthropic', () => {});
    expect(tap.readBuffered!()).toBeUndefined();
  });

  it('a client cancel reports what was seen so far as aborted, once, and cancels the source', async () => {
    const reports: Array<[Usage | undefined, boolean]> = [];
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(ANTHROPIC_SSE.split('\n\n')[0] + '\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const reader = tapPassthroughUsage(source.getReader(), 'anthropic', (u, a) => reports.push([u, a]));
    await reader.read();
    await reader.cancel();
    expect(cancelled).toBe(true);
    expect(reports).toEqual([[{ inputTokens: 50, outputTokens: 1, cacheReadTokens: 7, cacheWriteTokens: 3 }, true]]);
  });

  it('an upstream that breaks off mid-stream: the read rejects with its error, and what was seen is reported once, not as a client abort', async () => {
    const reports: Array<[Usage | undefined, boolean]> = [];
    const broken = new Error('upstream reset');
    const source = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(ANTHROPIC_SSE.split('\n\n')[0] + '\n\n'));
      },
      pull(c) {
        c.error(broken);
      },
    });
    const reader = tapPassthroughUsage(source.getReader(), 'anthropic', (u, a) => reports.push([u, a]));
    await reader.read();
    await expect(reader.read()).rejects.toBe(broken);
    await expect(reader.read()).rejects.toBe(broken);
    expect(reports).toEqual([[{ inputTokens: 50, outputTokens: 1, cacheReadTokens: 7, cacheWriteTokens: 3 }, false]]);

    // A source whose read throws instead of rejecting still gives a rejected read, not a throw.
    const throwing = { read: () => { throw broken; }, cancel: async () => {} };
    const later: Array<[Usage | undefined, boolean]> = [];
    const pending = tapPassthroughUsage(throwing as never, 'anthropic', (u, a) => later.push([u, a])).read();
    await expect(pending).rejects.toBe(broken);
    expect(later).toEqual([[undefined, false]]);
  });

  it('reads a whole JSON answer at once (text or bytes)', () => {
    const message = '{"type":"message","usage":{"input_tokens":12,"output_tokens":34,"cache_read_input_tokens":5}}';
    const expected = { inputTokens: 12, outputTokens: 34, cacheReadTokens: 5 };
    expect(readPassthroughUsage(message, 'anthropic')).toEqual(expected);
    expect(readPassthroughUsage(new TextEncoder().encode(message), 'anthropic')).toEqual(expected);
    expect(readPassthroughUsage('{"type":"message"}', 'anthropic')).toBeUndefined();
  });

  it('a JSON answer is read from its last usage key on: a tool input naming a counter before it is not taken', () => {
    // A tool's input is real JSON, so its keys are not escaped: only where they sit tells them apart.
    const message = JSON.stringify({
      type: 'message',
      content: [
        { type: 'text', text: 'ünïcode before the mark: "usage" as text stays escaped' },
        { type: 'tool_use', id: 'toolu_1', name: 'report', input: { cache_read_input_tokens: 50, output_tokens: 999, usage: 'quota' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 12, output_tokens: 34 },
    });
    for (const body of [message, new TextEncoder().encode(message)]) {
      expect(readPassthroughUsage(body, 'anthropic')).toEqual({ inputTokens: 12, outputTokens: 34 });
    }
    const gemini = JSON.stringify({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { promptTokenCount: 70, cachedContentTokenCount: 60 } } }] } }],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 4 },
      modelVersion: 'gemini-2.5-flash',
    });
    expect(readPassthroughUsage(new TextEncoder().encode(gemini), 'gemini')).toEqual({ inputTokens: 9, outputTokens: 4 });
    // Without the key, the counters are still looked for everywhere.
    expect(readPassthroughUsage(new TextEncoder().encode('{"input_tokens":3,"output_tokens":4}'), 'anthropic')).toEqual({ inputTokens: 3, outputTokens: 4 });
  });
});

describe('readStreamUsage', () => {
  /** What the tap reports for `wire` given in one chunk: a stream that came whole. */
  async function tapped(wire: string, family: 'anthropic' | 'gemini'): Promise<Usage | undefined> {
    const reports: Array<Usage | undefined> = [];
    await collect(streamOfReader(tapPassthroughUsage(fromArray([new TextEncoder().encode(wire)]).getReader(), family, (u) => reports.push(u))));
    expect(reports).toHaveLength(1);
    return reports[0];
  }

  it('reads a whole stream as the tap reads it in one chunk: short, long, padded past the head window, CRLF, cut anywhere (differential)', async () => {
    const events = ANTHROPIC_SSE.split('\n\n').filter(Boolean);
    const long = [events[0]!, ...Array.from({ length: 60 }, (_, i) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${i} ü \\"usage\\": 3"}}`), ...events.slice(1)].join('\n\n') + '\n\n';
    const ping = `event: ping\ndata: {"type": "ping"}\n\n${long}`;
    const padded = `event: message_start\ndata: {"type":"message_start","message":{"pad":"${'x'.repeat(2100)}","usage":{"input_tokens":12,"output_tokens":1}}}\n\n${events.slice(1).join('\n\n')}\n\n`;
    const gemini = Array.from({ length: 40 }, (_, i) => `data: {"candidates":[{"content":{"parts":[{"text":"${'w '.repeat(30)}"}]}}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":${i + 1},"thoughtsTokenCount":5,"cachedContentTokenCount":40}}\r\n\r\n`).join('');
    const anthropic = [ANTHROPIC_SSE, long, ping, long.replaceAll('\n', '\r\n'), padded, loadFixture('anthropic/upstream-thinking-tool.sse'), loadFixture('anthropic/upstream-server-tools.sse')];
    let compared = 0;
    for (const [family, wires] of [['anthropic', anthropic], ['gemini', [gemini, loadFixture('gemini/upstream-text.sse'), loadFixture('gemini/upstream-parallel-calls.sse')]]] as const) {
      for (const wire of wires) {
        for (let cut = 0; cut <= wire.length; cut += Math.max(1, Math.floor(wire.length / 97))) {
          const part = wire.slice(0, cut);
          expect(readStreamUsage(part, family), `${family} cut at ${cut} of ${wire.length}`).toEqual(await tapped(part, family));
          compared++;
        }
        expect(readStreamUsage(new TextEncoder().encode(wire), family)).toEqual(await tapped(wire, family));
      }
    }
    expect(compared).toBeGreaterThan(900);
    expect(readStreamUsage(ANTHROPIC_SSE, 'anthropic')).toEqual({ inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 });
    expect(readStreamUsage(gemini, 'gemini')).toEqual({ inputTokens: 60, outputTokens: 45, cacheReadTokens: 40, reasoningTokens: 5 });
    // A JSON answer's reader would miss message_start's input counts.
    expect(readPassthroughUsage(ANTHROPIC_SSE, 'anthropic')).toEqual({ inputTokens: 0, outputTokens: 42 });
  });
});
