import { createParser } from 'eventsource-parser';
import type { Stage } from './stage.ts';
import { createUtf8StreamDecoder } from './utf8-stream.ts';

export interface SseMessage {
  /** The `event:` name, absent for data-only messages. */
  event?: string;
  data: string;
}

/**
 * Bytes → SSE messages (any of LF, CRLF, CR line endings; comments skipped) as a synchronous
 * stage, one new instance per stream, fused with the upstream reader after it. Messages are
 * emitted as soon as their blank line arrives: nothing is batched.
 */
export function createSseReader(): Stage<Uint8Array, SseMessage> {
  const decoder = createUtf8StreamDecoder();
  let sink: (message: SseMessage) => void = () => {};
  const parser = createParser({
    onEvent(message) {
      sink(message.event ? { event: message.event, data: message.data } : { data: message.data });
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
