import { describe, expect, it } from 'vitest';
import { TextDeltaFrame, writeTextDeltaText, writeThinkingDeltaText } from '../../../core/families/anthropic/write-frame-text.ts';
import { JsonTextSpan } from '../../../core/http/json-text-span.ts';
import type { SseMessage } from '../../../core/http/sse-read.ts';
import { encodeSse, encodeSseBatch } from '../../../core/http/sse-write.ts';

const decode = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** A frame for `text` as the OpenAI reader makes one: its JSON body left in the bytes it came in. */
function frameOf(index: number, text: string, kind: 'text' | 'thinking' = 'text'): TextDeltaFrame {
  const bytes = new TextEncoder().encode(`{"content":${JSON.stringify(text)}}`);
  return new TextDeltaFrame(index, new JsonTextSpan(bytes, 12, bytes.length - 2), kind);
}

describe('SSE frames that write their own bytes', () => {
  it('write what the same message as text gives, byte for byte', () => {
    for (const [index, text] of [[0, 'Hi'], [3, ' "q" \\ é😀\n'], [70, 'past the cached heads']] as const) {
      const frame = frameOf(index, text);
      const message: SseMessage = { event: 'content_block_delta', data: writeTextDeltaText(index, text) };
      expect(frame.data).toBe(message.data);
      expect(decode(encodeSse(frame))).toBe(decode(encodeSse(message)));
      expect(frame.byteLength).toBe(encodeSse(message).length);
      const thinking = frameOf(index, text, 'thinking');
      const thought: SseMessage = { event: 'content_block_delta', data: writeThinkingDeltaText(index, text) };
      expect(thinking.data).toBe(thought.data);
      expect(decode(encodeSse(thinking))).toBe(decode(encodeSse(thought)));
    }
  });

  it('mix with text messages in a batch, in order', () => {
    const messages: SseMessage[] = [
      { event: 'message_start', data: '{"a":1}' },
      frameOf(0, 'one'),
      frameOf(0, ' two'),
      { data: '{"b":"ü"}' },
      frameOf(1, ' three'),
      { event: 'message_stop', data: '{}' },
    ];
    for (let from = 0; from < messages.length; from++) {
      for (let to = from + 1; to <= messages.length; to++) {
        const part = messages.slice(from, to);
        expect(decode(encodeSseBatch(part))).toBe(part.map((m) => decode(encodeSse(m))).join(''));
      }
    }
    expect(encodeSseBatch([])).toBeUndefined();
  });
});
