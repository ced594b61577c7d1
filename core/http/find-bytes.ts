/**
 * Byte-level search for ASCII marks in UTF-8 text. An ASCII byte never occurs inside a
 * multi-byte sequence, so a mark found here is where the decoded text has it too, and the text
 * can be read from (or up to) that point without decoding the rest. Plain loops: the marks are
 * searched for within a few KiB, where a call to the typed array's own `indexOf` per candidate
 * byte cost more than comparing the bytes here. `length`, never `byteLength`, in a loop: Node 20
 * does not inline the `byteLength` getter, ~10 ns a read (a 722-byte scan 7.1 µs against 0.6).
 */
export function encodeMark(mark: string): Uint8Array {
  return new TextEncoder().encode(mark);
}

/** First index of `mark` in `bytes[from, to)`, or -1. */
export function indexOfBytes(bytes: Uint8Array, mark: Uint8Array, from = 0, to = bytes.length): number {
  const last = Math.min(to, bytes.length) - mark.length;
  const first = mark[0]!;
  for (let at = from; at <= last; at++) {
    if (bytes[at] === first && matchesAt(bytes, mark, at)) return at;
  }
  return -1;
}

/** Last index of `mark` in `bytes[from, to)`, or -1. */
export function lastIndexOfBytes(bytes: Uint8Array, mark: Uint8Array, from = 0, to = bytes.length): number {
  const first = mark[0]!;
  for (let at = Math.min(to, bytes.length) - mark.length; at >= from; at--) {
    if (bytes[at] === first && matchesAt(bytes, mark, at)) return at;
  }
  return -1;
}

function matchesAt(bytes: Uint8Array, mark: Uint8Array, at: number): boolean {
  for (let i = 1; i < mark.length; i++) if (bytes[at + i] !== mark[i]) return false;
  return true;
}
