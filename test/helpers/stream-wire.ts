import { createAnthropicStreamWriter } from '../../core/families/anthropic/write-stream.ts';
import { createJsonArrayEncoder } from '../../core/families/gemini/write-json-array.ts';
import { createGeminiStreamWriter } from '../../core/families/gemini/write-stream.ts';
import type { SseMessage } from '../../core/http/sse-read.ts';
import { encodeSseBatch } from '../../core/http/sse-write.ts';
import type { Stage } from '../../core/http/stage.ts';
import type { StreamEvent } from '../../core/ir.ts';
import { plainEvents } from './streams.ts';

export interface WireRead {
  events: StreamEvent[];
  /** What each family's client receives, one chunk per upstream read (as the routes encode it). */
  claude: string[];
  geminiSse: string[];
  geminiArray: string[];
}

/**
 * Upstream bytes in `pieces` through a stream reader, then through the Claude-style and Gemini
 * writers and their encoders, batch by batch as the routes run them: what a reader means and
 * what clients of each family receive, to compare two readers of the same bytes.
 */
export function readToWire(reader: Stage<Uint8Array, StreamEvent>, pieces: Uint8Array[]): WireRead {
  const claude = createAnthropicStreamWriter({ model: 'claude-x', id: 'msg_1' });
  const gemini = createGeminiStreamWriter({ model: 'gemini-x' });
  const array = createJsonArrayEncoder();
  const out: WireRead = { events: [], claude: [], geminiSse: [], geminiArray: [] };
  const decode = (bytes: Uint8Array | undefined) => bytes && new TextDecoder().decode(bytes);
  const batch = (feed: (emit: (event: StreamEvent) => void) => void, end = false) => {
    const claudeFrames: SseMessage[] = [];
    const geminiFrames: SseMessage[] = [];
    feed((event) => {
      out.events.push(event);
      claude.push(event, (frame) => claudeFrames.push(frame));
      gemini.push(event, (frame) => geminiFrames.push(frame));
    });
    if (end) {
      claude.end((frame) => claudeFrames.push(frame));
      gemini.end((frame) => geminiFrames.push(frame));
    }
    for (const [list, bytes] of [
      [out.claude, encodeSseBatch(claudeFrames)],
      [out.geminiSse, encodeSseBatch(geminiFrames)],
      [out.geminiArray, array(geminiFrames, end)],
    ] as const) {
      const text = decode(bytes);
      if (text !== undefined) list.push(text);
    }
  };
  for (const piece of pieces) if (!reader.stopped) batch((emit) => reader.push(piece, emit));
  batch((emit) => reader.end(emit), true);
  out.events = plainEvents(out.events);
  return out;
}

/** `bytes` in pieces of `size`. */
export function cutBytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

/**
 * Asserts that two readers of the same stream mean the same and put the same bytes on every
 * family's wire, whatever the cut: in pieces of many sizes, and in two at many points.
 */
export function expectSameWire(bytes: Uint8Array, makeA: () => Stage<Uint8Array, StreamEvent>, makeB: () => Stage<Uint8Array, StreamEvent>, expect: (actual: unknown, message?: string) => { toEqual(expected: unknown): void }): void {
  for (const size of [1, 2, 3, 7, 64, 200, bytes.length]) {
    expect(readToWire(makeA(), cutBytes(bytes, size)), `pieces of ${size}`).toEqual(readToWire(makeB(), cutBytes(bytes, size)));
  }
  for (let at = 1; at < bytes.length; at += 13) {
    const pieces = [bytes.slice(0, at), bytes.slice(at)];
    expect(readToWire(makeA(), pieces), `cut at ${at}`).toEqual(readToWire(makeB(), pieces));
  }
}

/** The text deltas a reader emits for `bytes` read in pieces of `size`: which kept their text in the upstream's bytes. */
export function readTextDeltas(reader: Stage<Uint8Array, StreamEvent>, bytes: Uint8Array, size: number, type: 'text-delta' | 'reasoning-delta' = 'text-delta'): Array<'span' | 'text'> {
  const events: StreamEvent[] = [];
  for (const piece of cutBytes(bytes, size)) reader.push(piece, (e) => events.push(e));
  reader.end((e) => events.push(e));
  return events.flatMap((e) => (e.type === type ? [e.span ? 'span' : 'text'] : []));
}
