import type { SseMessage } from './sse-read.ts';

const encoder = new TextEncoder();

/**
 * A message that writes its own wire bytes (its `event:` line, `data:` line and blank line), e.g.
 * to copy text from the upstream's bytes (see JsonTextSpan) instead of encoding it. `data` still
 * reads as the same text, for any other reader.
 */
export interface SseFrame extends SseMessage {
  readonly byteLength: number;
  /** Writes the frame into `out` at `at`; where it ends. */
  writeInto(out: Uint8Array, at: number): number;
}

function isFrame(message: SseMessage): message is SseFrame {
  return (message as Partial<SseFrame>).writeInto !== undefined;
}

/** Serialises one SSE message: an optional `event:` line and exactly one `data:` line. */
export function encodeSse(message: SseMessage): Uint8Array {
  if (isFrame(message)) {
    const out = new Uint8Array(message.byteLength);
    message.writeInto(out, 0);
    return out;
  }
  return encoder.encode(writeSseText(message));
}

/** Serialises several SSE messages into one chunk, byte for byte what `encodeSse` gives one by one. */
export function encodeSseBatch(messages: SseMessage[]): Uint8Array | undefined {
  if (messages.length === 0) return undefined;
  let text = '';
  // Frames and the encoded text between them, in order; undefined while there is no frame.
  let parts: Array<Uint8Array | SseFrame> | undefined;
  let size = 0;
  for (const message of messages) {
    if (!isFrame(message)) {
      text += writeSseText(message);
      continue;
    }
    parts ??= [];
    if (text) {
      const bytes = encoder.encode(text);
      parts.push(bytes);
      size += bytes.length;
      text = '';
    }
    parts.push(message);
    size += message.byteLength;
  }
  if (!parts) return encoder.encode(text);
  const tail = text ? encoder.encode(text) : undefined;
  const out = new Uint8Array(size + (tail?.length ?? 0));
  let at = 0;
  for (const part of parts) {
    if (part instanceof Uint8Array) {
      out.set(part, at);
      at += part.length;
    } else {
      at = part.writeInto(out, at);
    }
  }
  if (tail) out.set(tail, at);
  return out;
}

function writeSseText(message: SseMessage): string {
  return message.event ? `event: ${message.event}\ndata: ${message.data}\n\n` : `data: ${message.data}\n\n`;
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
