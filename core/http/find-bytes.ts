/**
 * Byte-level search for ASCII marks in UTF-8 text. An ASCII byte never occurs inside a
 * multi-byte sequence, so a mark found here is where the decoded text has it too, and the text
 * can be decoded from (or up to) that point without decoding the rest.
 */
export function encodeMark(mark: string): Uint8Array {
  return new TextEncoder().encode(mark);
}

/** First index of `mark` in `bytes` at or after `from`, or -1. */
export function indexOfBytes(bytes: Uint8Array, mark: Uint8Array, from = 0): number {
  const first = mark[0]!;
  const last = bytes.byteLength - mark.byteLength;
  for (let at = bytes.indexOf(first, from); at !== -1 && at <= last; at = bytes.indexOf(first, at + 1)) {
    if (matchesAt(bytes, mark, at)) return at;
  }
  return -1;
}

/** Last index of `mark` in `bytes`, or -1. */
export function lastIndexOfBytes(bytes: Uint8Array, mark: Uint8Array): number {
  const first = mark[0]!;
  const last = bytes.byteLength - mark.byteLength;
  if (last < 0) return -1;
  for (let at = bytes.lastIndexOf(first, last); at !== -1; at = at === 0 ? -1 : bytes.lastIndexOf(first, at - 1)) {
    if (matchesAt(bytes, mark, at)) return at;
  }
  return -1;
}

function matchesAt(bytes: Uint8Array, mark: Uint8Array, at: number): boolean {
  for (let i = 1; i < mark.byteLength; i++) if (bytes[at + i] !== mark[i]) return false;
  return true;
}
