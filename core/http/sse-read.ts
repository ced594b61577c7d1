import { createParser } from 'eventsource-parser';

export interface SseMessage {
  /** The `event:` name, absent for data-only messages. */
  event?: string;
  data: string;
}

/**
 * Bytes → SSE messages (any of LF, CRLF, CR line endings; comments skipped), one new instance
 * per stream. Messages are enqueued as soon as their blank line arrives: nothing is batched.
 */
export function readSse(): TransformStream<Uint8Array, SseMessage> {
  const decoder = new TextDecoder();
  let sink: TransformStreamDefaultController<SseMessage> | undefined;
  const parser = createParser({
    onEvent(message) {
      sink!.enqueue(message.event ? { event: message.event, data: message.data } : { data: message.data });
    },
  });
  return new TransformStream<Uint8Array, SseMessage>({
    transform(chunk, controller) {
      sink = controller;
      parser.feed(decoder.decode(chunk, { stream: true }));
    },
    flush(controller) {
      sink = controller;
      const rest = decoder.decode();
      // A final message without its blank line still counts (some hosts end that way).
      parser.feed(rest + '\n\n');
    },
  });
}
