import { BACKSLASH, QUOTE } from './json-chars.ts';

// A body may start with U+FEFF, which a default decoder would drop as a byte-order mark.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A JSON string's body (what lies between its quotes) left in the UTF-8 bytes it arrived in, and
 * written exactly as `JSON.stringify` would write its value (see `readExactStringBody`). A writer
 * copies the bytes into its own JSON instead of decoding the text and encoding it again; `text()`
 * decodes it for any reader that needs the string.
 */
export class JsonTextSpan {
  constructor(
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {}

  get byteLength(): number {
    return this.end - this.start;
  }

  text(): string {
    const body = decoder.decode(this.bytes.subarray(this.start, this.end));
    return body.includes('\\') ? (JSON.parse(`"${body}"`) as string) : body;
  }

  /** Copies the body's bytes into `out` at `at`; where they end. */
  writeInto(out: Uint8Array, at: number): number {
    const { bytes, end } = this;
    // A loop, not `set(subarray(…))`: bodies are a few bytes, and Node 20 allocates each subarray.
    for (let i = this.start; i < end; i++) out[at++] = bytes[i]!;
    return at;
  }
}

/**
 * Where the JSON string body starting at `from` ends (the index of its closing quote, before
 * `limit`), when `JSON.stringify` of its value gives back these very bytes: well-formed UTF-8, no
 * raw control character, and no escape but the ones `JSON.stringify` writes (`\"`, `\\`, `\b`,
 * `\f`, `\n`, `\r`, `\t`, and lower-case `\u00xx` for the other control characters). Anything else
 * (`\/`, `\u00e9`, a surrogate escape, a cut or invalid sequence), or no closing quote: -1.
 */
export function readExactStringBody(bytes: Uint8Array, from: number, limit: number): number {
  let i = from;
  while (i < limit) {
    const c = bytes[i]!;
    if (c === QUOTE) return i;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      i = readExactEscape(bytes, i + 1, limit);
      if (i < 0) return -1;
    } else if (c < 0x80) {
      i++;
    } else {
      i = readUtf8Sequence(bytes, i, c, limit);
      if (i < 0) return -1;
    }
  }
  return -1;
}

/** Past an escape JSON.stringify would write (from the byte after its backslash), or -1. */
function readExactEscape(bytes: Uint8Array, at: number, limit: number): number {
  if (at >= limit) return -1;
  const c = bytes[at]!;
  // " \ b f n r t
  if (c === 0x22 || c === 0x5c || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) return at + 1;
  if (c !== 0x75 || at + 5 > limit || bytes[at + 1] !== 0x30 || bytes[at + 2] !== 0x30) return -1;
  const high = bytes[at + 3]!;
  const low = hexValue(bytes[at + 4]!);
  if ((high !== 0x30 && high !== 0x31) || low < 0) return -1;
  const code = (high - 0x30) * 16 + low;
  // These have the short forms above.
  if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return -1;
  return at + 5;
}

/** 0–15 for a lower-case hex digit (JSON.stringify writes no upper-case ones), else -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Past the well-formed UTF-8 sequence whose lead byte `lead` is at `at`, or -1 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF, none cut by `limit`).
 */
function readUtf8Sequence(bytes: Uint8Array, at: number, lead: number, limit: number): number {
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    else if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    else if (lead === 0xf4) high = 0x8f;
  } else return -1;
  if (at + length > limit) return -1;
  const second = bytes[at + 1]!;
  if (second < low || second > high) return -1;
  for (let i = at + 2; i < at + length; i++) {
    const c = bytes[i]!;
    if (c < 0x80 || c > 0xbf) return -1;
  }
  return at + length;
}
