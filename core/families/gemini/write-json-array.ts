/** @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent */
import type { SseMessage } from '../../http/sse-read.ts';

const encoder = new TextEncoder();

/**
 * `streamGenerateContent` without `?alt=sse` answers with a JSON array written element by element
 * (`[` chunk `,\r\n` chunk … `]`), as Gemini does; an error frame simply becomes the last element.
 * Each element goes out as soon as it comes: nothing waits for the closing bracket.
 */
export function writeJsonArray(): TransformStream<SseMessage, Uint8Array> {
  let first = true;
  return new TransformStream<SseMessage, Uint8Array>({
    transform(message, controller) {
      controller.enqueue(encoder.encode(`${first ? '[' : '\n,\r\n'}${message.data}`));
      first = false;
    },
    flush(controller) {
      controller.enqueue(encoder.encode(first ? '[]' : '\n]'));
    },
  });
}
