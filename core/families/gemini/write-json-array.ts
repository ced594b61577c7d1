/** @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent */
import type { SseMessage } from '../../http/sse-read.ts';
import type { Encode } from '../../http/staged-stream.ts';

const encoder = new TextEncoder();

/**
 * `streamGenerateContent` without `?alt=sse` answers with a JSON array written element by element
 * (`[` chunk `,\r\n` chunk … `]`), as Gemini does; an error frame simply becomes the last element.
 * Each batch goes out as soon as it comes: nothing waits for the closing bracket. One encoder per
 * answer (it remembers whether the opening bracket went out).
 */
export function createJsonArrayEncoder(): Encode<SseMessage, Uint8Array> {
  let first = true;
  return (messages, end) => {
    let text = '';
    for (const message of messages) {
      text += `${first ? '[' : '\n,\r\n'}${message.data}`;
      first = false;
    }
    if (end) text += first ? '[]' : '\n]';
    return text ? encoder.encode(text) : undefined;
  };
}
