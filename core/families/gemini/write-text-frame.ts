import type { JsonTextSpan } from '../../http/json-text-span.ts';
import type { SseFrame } from '../../http/sse-write.ts';

const encoder = new TextEncoder();
const HEAD_TEXT = '{"candidates":[{"content":{"parts":[{"text":';
const HEAD = encoder.encode(`data: ${HEAD_TEXT}"`);

/**
 * The chunk of one unsigned text part whose text is still in the upstream's bytes: `data:` then
 * `{"candidates":[{"content":{"parts":[{"text":…}],"role":"model"},"index":0}]` (a thought part:
 * `{"text":…,"thought":true}`) and the stream's `tail` (`,"modelVersion":…,"responseId":…}`),
 * byte for byte what the stream writer's chunk gives (the span is written as JSON.stringify
 * writes its text), with the text copied instead of decoded and encoded again.
 */
export class GeminiTextFrame implements SseFrame {
  constructor(
    readonly span: JsonTextSpan,
    /** The chunk's text after the part's text: `"}],"role":"model"},"index":0}]` + tail (see writeTextFrameAfter). */
    readonly after: string,
    /** `after` as UTF-8, then the blank line. */
    readonly afterBytes: Uint8Array,
  ) {}

  get data(): string {
    return `${HEAD_TEXT}${JSON.stringify(this.span.text())}${this.after.slice(1)}`;
  }

  get byteLength(): number {
    return HEAD.length + this.span.byteLength + this.afterBytes.length;
  }

  writeInto(out: Uint8Array, at: number): number {
    out.set(HEAD, at);
    const end = this.span.writeInto(out, at + HEAD.length);
    out.set(this.afterBytes, end);
    return end + this.afterBytes.length;
  }
}

/**
 * What follows a text part's text in a chunk whose `tail` is given, as text and as frame bytes;
 * `thought`: the part is a thought (`"thought":true` after its text, as the stream writer's chunk
 * writes it).
 */
export function writeTextFrameAfter(tail: string, thought = false): { after: string; afterBytes: Uint8Array } {
  const after = `"${thought ? ',"thought":true' : ''}}],"role":"model"},"index":0}]${tail}`;
  return { after, afterBytes: encoder.encode(`${after}\n\n`) };
}
