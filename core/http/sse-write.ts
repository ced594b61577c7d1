import type { SseMessage } from './sse-read.ts';

const encoder = new TextEncoder();

/** Serialises one SSE message: an optional `event:` line and exactly one `data:` line. */
export function encodeSse(message: SseMessage): Uint8Array {
  const text = message.event ? `event: ${message.event}\ndata: ${message.data}\n\n` : `data: ${message.data}\n\n`;
  return encoder.encode(text);
}

/** Serialises several SSE messages into one chunk, byte for byte what `encodeSse` gives one by one. */
export function encodeSseBatch(messages: SseMessage[]): Uint8Array | undefined {
  if (messages.length === 0) return undefined;
  let text = '';
  for (const message of messages) text += message.event ? `event: ${message.event}\ndata: ${message.data}\n\n` : `data: ${message.data}\n\n`;
  return encoder.encode(text);
}

/**
 * SSE messages → bytes. `data` must be single-line (JSON text always is), which is what the Gemini
 * SDK requires: it parses everything after the first `data:` of an event as one JSON text.
 */
export function writeSse(): TransformStream<SseMessage, Uint8Array> {
  return new TransformStream<SseMessage, Uint8Array>({
    transform(message, controller) {
      controller.enqueue(encodeSse(message));
    },
  });
}
