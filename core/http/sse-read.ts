import { createParser } from 'eventsource-parser';
import { GatewayError } from '../errors.ts';
import type { Stage } from './stage.ts';
import { createUtf8StreamDecoder } from './utf8-stream.ts';

export interface SseMessage {
  /** The `event:` name, absent for data-only messages. */
  event?: string;
  data: string;
}

/**
 * The most of one event a reader holds before it refuses the stream, in bytes (or characters, in
 * the parser). No model's event comes near it (a Gemini image part is a few MB of base64), but
 * an upstream that never ends an event would otherwise have it held until memory ran out.
 */
export const MAX_SSE_EVENT_BYTES = 64 * 1024 * 1024;

/** Thrown by a reader (a stage) mid-stream: the client gets its family's error frame. */
export function eventTooLarge(limit: number): GatewayError {
  const size = limit % 1048576 === 0 ? `${limit / 1048576} MiB` : `${limit} bytes`;
  return new GatewayError('upstream', `Upstream sent a stream event over ${size}; the stream was cut there`);
}

/**
 * Bytes → SSE messages (any of LF, CRLF, CR line endings; comments skipped) as a synchronous
 * stage, one new instance per stream, fused with the upstream reader after it. Messages are
 * emitted as soon as their blank line arrives: nothing is batched. An event held past
 * `maxEvent` characters fails the stream (`eventTooLarge`).
 */
export function createSseReader(maxEvent = MAX_SSE_EVENT_BYTES): Stage<Uint8Array, SseMessage> {
  const decoder = createUtf8StreamDecoder();
  let sink: (message: SseMessage) => void = () => {};
  const parser = createParser({
    onEvent(message) {
      sink(message.event ? { event: message.event, data: message.data } : { data: message.data });
    },
    maxBufferSize: maxEvent,
    onError(error) {
      // Unknown fields and bad `retry` values are the parser's notes, not failures.
      if (error.type === 'max-buffer-size-exceeded') throw eventTooLarge(maxEvent);
    },
  });
  // The text fed so far ended inside a line, whose start the parser holds.
  let midLine = false;
  return {
    push(chunk, emit) {
      sink = emit;
      const text = decoder.decode(chunk);
      if (text.length === 0) return;
      // Given a line end, the parser joins the start it holds with all of the new text, a copy of
      // every read that ended mid-event. The held line's end goes in first, so the rest of the
      // read is parsed where it lies. Any cut is input the parser reads the same.
      const end = midLine ? text.indexOf('\n') + 1 : 0;
      if (end > 0 && end < text.length) {
        parser.feed(text.slice(0, end));
        parser.feed(text.slice(end));
      } else {
        parser.feed(text);
      }
      const last = text.charCodeAt(text.length - 1);
      midLine = last !== 0x0a && last !== 0x0d;
    },
    end(emit) {
      sink = emit;
      const rest = decoder.end();
      // A final message without its blank line still counts (some hosts end that way).
      parser.feed(rest + '\n\n');
    },
  };
}
