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
  return {
    push(chunk, emit) {
      sink = emit;
      parser.feed(decoder.decode(chunk));
    },
    end(emit) {
      sink = emit;
      const rest = decoder.end();
      // A final message without its blank line still counts (some hosts end that way).
      parser.feed(rest + '\n\n');
    },
  };
}
