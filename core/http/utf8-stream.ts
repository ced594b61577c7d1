import { joinBytes } from './join-bytes.ts';

// A default decoder drops U+FEFF at the start of every call, and each chunk is its own call: a
// text character at a chunk's start would be lost. The SSE parser drops the stream's own BOM.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export interface Utf8StreamDecoder {
  /** Text of `chunk`, less a trailing character cut by the chunk boundary (held for the next call). */
  decode(chunk: Uint8Array): string;
  /** Flushes a held incomplete sequence as U+FFFD, as a streaming TextDecoder does at its end. */
  end(): string;
}

/**
 * UTF-8 bytes → text across chunks, giving the same text as `TextDecoder.decode(chunk, { stream:
 * true })`. Node 20's TextDecoder leaves its fast path for ICU in streaming mode (about 8× slower on
 * SSE chunks) and gives each stream a native converter whose handle outlives young-generation
 * collections; here every chunk is decoded whole, and only a character cut at a chunk's end waits.
 */
export function createUtf8StreamDecoder(): Utf8StreamDecoder {
  let held: Uint8Array | undefined;
  return {
    decode(chunk) {
      let bytes = chunk;
      if (held) {
        bytes = joinBytes([held, chunk], held.byteLength + chunk.byteLength);
        held = undefined;
      }
      const cut = readCutCharacter(bytes);
      if (cut < bytes.byteLength) {
        held = bytes.slice(cut);
        bytes = bytes.subarray(0, cut);
      }
      return bytes.byteLength === 0 ? '' : decoder.decode(bytes);
    },
    end() {
      const rest = held;
      held = undefined;
      return rest ? decoder.decode(rest) : '';
    },
  };
}

/**
 * Where a multi-byte sequence that the chunk ends inside begins (its lead byte, then only
 * continuation bytes, fewer than the lead announces), or the chunk's length if none is cut.
 * Bytes that are already invalid are decoded now: they give U+FFFD either way.
 */
function readCutCharacter(bytes: Uint8Array): number {
  const length = bytes.byteLength;
  for (let i = length - 1; i >= 0 && i >= length - 3; i--) {
    const byte = bytes[i]!;
    if (byte < 0x80) return length;
    if (byte < 0xc0) continue; // a continuation byte: look further back for its lead
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return byte >= 0xc2 && byte <= 0xf4 && length - i < needs ? i : length;
  }
  return length;
}
