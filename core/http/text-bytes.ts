const REPLACEMENT = '\uFFFD';

/**
 * The bytes `text` was decoded from (by a default `TextDecoder`), when they are exactly its UTF-8:
 * without the byte-order mark the decoder dropped, and undefined when the decode may have replaced
 * invalid sequences (the text holds U+FFFD). A writer can then send these bytes instead of
 * encoding the text again: on Node each large string (a 400 KB body) is a fresh allocation that
 * costs more than the parse that needed it.
 */
export function readTextBytes(bytes: Uint8Array, text: string): Uint8Array | undefined {
  if (text.includes(REPLACEMENT)) return undefined;
  const from = startOfText(bytes);
  return from ? bytes.subarray(from) : bytes;
}

/** Where UTF-8 text starts in `bytes`: past a byte-order mark (which a default decoder drops), else 0. */
export function startOfText(bytes: Uint8Array): number {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/**
 * How many UTF-8 bytes `text.slice(from, to)` encodes to (as `TextEncoder` writes it), without
 * encoding it. `from` and `to` must not split a surrogate pair (the callers' offsets sit at JSON
 * punctuation).
 */
export function utf8Length(text: string, from: number, to: number): number {
  let bytes = to - from;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else {
      // Three bytes, and a surrogate pair four for its two units; a lone surrogate is written as
      // U+FFFD, three bytes.
      bytes += 2;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) i++;
      }
    }
  }
  return bytes;
}
