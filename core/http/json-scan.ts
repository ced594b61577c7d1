import { BACKSLASH, CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars.ts';
import { startOfText } from './text-bytes.ts';

/**
 * A JSON object read straight from its UTF-8 bytes: checked against the grammar (RFC 8259, and
 * UTF-8 well-formed) and cut into its top-level members, without decoding the bytes into a string
 * or building a value. A passthrough needs a large body's head and where its model is, not the
 * megabytes of objects a parse makes: for a 400 KB prompt, decoding, parsing and finding the
 * model took ~0.6 ms on Bun 1.4 and ~1.5 ms on Node 20; this scan takes ~0.22 and ~0.6 ms and
 * leaves no string or objects for the collector. No library does this job: JSON tokenizers in
 * JavaScript build every value and are slower than JSON.parse itself.
 */

/** A top-level member: its key and where its value starts and ends in the bytes. */
export interface ScannedMember {
  key: string;
  start: number;
  end: number;
  /** The value's first byte: `{`, `[`, `"`, or the first of a number or literal. */
  kind: number;
}

export interface JsonScan {
  members: ScannedMember[];
  /** Where the object starts: 3 after a byte-order mark, else 0 (JSON.parse's text has none). */
  from: number;
  /** A string value (anywhere) starts with the scan's `marker`. */
  marked: boolean;
}

/**
 * The top-level members of the object `bytes` hold, or undefined when they are not exactly one
 * well-formed JSON object in well-formed UTF-8 (the caller then decodes and parses, for the exact
 * error, or for text a decoder repairs). `marker`: an ASCII prefix to look for at the start of
 * string values, while the scan passes them anyway.
 */
export function scanJsonObject(bytes: Uint8Array, marker = ''): JsonScan | undefined {
  const b = bytes;
  const n = b.length;
  const from = startOfText(b);
  const mark = encodeAscii(marker);
  let marked = false;
  let i = skipSpace(b, from);
  if (b[i] !== OPEN_BRACE) return undefined;
  const members: ScannedMember[] = [];
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACE) return skipSpace(b, i + 1) === n ? { members, from, marked } : undefined;
  // The open containers, innermost last: OPEN_BRACE or OPEN_BRACKET.
  const open: number[] = [OPEN_BRACE];
  let keyStart = 0;
  let keyEnd = 0;
  let memberStart = 0;
  for (;;) {
    // At a member (in an object) or an element (in an array).
    const depth = open.length;
    if (open[depth - 1] === OPEN_BRACE) {
      if (b[i] !== QUOTE) return undefined;
      const end = endOfString(b, i);
      if (end < 0) return undefined;
      if (depth === 1) {
        keyStart = i;
        keyEnd = end;
      }
      i = skipSpace(b, end);
      if (b[i] !== COLON) return undefined;
      i = skipSpace(b, i + 1);
    }
    if (depth === 1) memberStart = i;
    const c = b[i];
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      i = skipSpace(b, i + 1);
      // `}` and `]` are two past their openers; an empty container is a value already read.
      if (b[i] !== c + 2) {
        open.push(c);
        continue;
      }
      i++;
    } else if (c === QUOTE) {
      if (mark.length && !marked && startsWith(b, i + 1, mark)) marked = true;
      i = endOfString(b, i);
    } else if (c === LOWER_T) i = endOfWord(b, i, TRUE);
    else if (c === LOWER_F) i = endOfWord(b, i, FALSE);
    else if (c === LOWER_N) i = endOfWord(b, i, NULL);
    else i = endOfNumber(b, i);
    if (i < 0) return undefined;
    // After a value: a comma goes on to the next one, a closer ends its container (and so
    // completes the value of the container around it).
    for (;;) {
      if (open.length === 1) members.push({ key: readKey(b, keyStart, keyEnd), start: memberStart, end: i, kind: b[memberStart]! });
      i = skipSpace(b, i);
      const next = b[i];
      if (next === COMMA) {
        i = skipSpace(b, i + 1);
        break;
      }
      if (next !== open[open.length - 1]! + 2) return undefined;
      open.pop();
      i++;
      if (open.length === 0) return skipSpace(b, i) === n ? { members, from, marked } : undefined;
    }
  }
}

/**
 * The value of `key` when it is the first member of the object in `bytes` and a short string
 * without escapes: a cheap look at where clients put the model (the scan or a parse, which also
 * see a repeated key, decide what the body says).
 */
export function readLeadingString(bytes: Uint8Array, key: string): string | undefined {
  const b = bytes;
  let i = skipSpace(b, startOfText(b));
  if (b[i] !== OPEN_BRACE) return undefined;
  i = skipSpace(b, i + 1);
  if (b[i] !== QUOTE || !startsWith(b, i + 1, encodeAscii(key)) || b[i + 1 + key.length] !== QUOTE) return undefined;
  i = skipSpace(b, i + key.length + 2);
  if (b[i] !== COLON) return undefined;
  i = skipSpace(b, i + 1);
  if (b[i] !== QUOTE) return undefined;
  const start = i + 1;
  const last = Math.min(b.length, start + LEADING_STRING_BYTES);
  for (let j = start; j < last; j++) {
    const c = b[j]!;
    if (c === QUOTE) return decoder.decode(b.subarray(start, j));
    if (c === BACKSLASH || c < 0x20) return undefined;
  }
  return undefined;
}

/** Longer than any model name. */
const LEADING_STRING_BYTES = 256;

const LOWER_T = 0x74;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const TRUE = encodeAscii('true');
const FALSE = encodeAscii('false');
const NULL = encodeAscii('null');

function encodeAscii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

function skipSpace(b: Uint8Array, i: number): number {
  const n = b.length;
  while (i < n) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
  return n;
}

function startsWith(b: Uint8Array, at: number, mark: Uint8Array): boolean {
  for (let k = 0; k < mark.length; k++) if (b[at + k] !== mark[k]) return false;
  return true;
}

function endOfWord(b: Uint8Array, i: number, word: Uint8Array): number {
  return startsWith(b, i, word) ? i + word.length : -1;
}

/** `i` at a number's first byte → just past it, or -1 where the grammar is broken. */
function endOfNumber(b: Uint8Array, i: number): number {
  if (b[i] === 0x2d) i++; // -
  const first = b[i];
  if (first === 0x30) i++; // a leading 0 stands alone
  else if (first !== undefined && first >= 0x31 && first <= 0x39) i = endOfDigits(b, i + 1);
  else return -1;
  if (b[i] === 0x2e) {
    const after = endOfDigits(b, i + 1);
    if (after === i + 1) return -1;
    i = after;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === 0x2b || b[i] === 0x2d) i++;
    const after = endOfDigits(b, i);
    if (after === i) return -1;
    i = after;
  }
  return i;
}

function endOfDigits(b: Uint8Array, i: number): number {
  for (;;) {
    const c = b[i];
    if (c === undefined || c < 0x30 || c > 0x39) return i;
    i++;
  }
}

/**
 * `i` at an opening quote → just past the closing one, or -1: a control character, a bad escape,
 * ill-formed UTF-8 or the end of the bytes. ASCII runs in the inner loop; a multi-byte character
 * is checked as the decoder would (no overlong forms, no surrogates, nothing past U+10FFFF), so
 * bytes that pass decode to exactly themselves.
 */
function endOfString(b: Uint8Array, i: number): number {
  const n = b.length;
  i++;
  for (;;) {
    // One table read per byte: the long ASCII runs of a prompt's text stay in this loop.
    while (i < n && PLAIN[b[i]!] === 1) i++;
    if (i >= n) return -1;
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      // The one-letter escapes a prompt is full of (\n, \t, \", \\) without a call.
      const e = b[i + 1];
      if (e === 0x6e || e === 0x74 || e === QUOTE || e === BACKSLASH) i += 2;
      else i = endOfEscape(b, i + 1);
    } else if (c < 0x20) return -1;
    else i = endOfCharacter(b, i, c);
    if (i < 0) return -1;
  }
}

/** 1 for the bytes a string holds as they are: printable ASCII but the quote and backslash. */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;

/** `i` just past a backslash → just past its escape, or -1. */
function endOfEscape(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === 0x75) {
    for (let k = 1; k <= 4; k++) {
      const h = b[i + k];
      if (h === undefined || !((h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66))) return -1;
    }
    return i + 5;
  }
  // " \ / b f n r t
  return c === QUOTE || c === BACKSLASH || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74 ? i + 1 : -1;
}

/** `i` at a lead byte `c` ≥ 0x80 → just past its character, or -1 (Unicode's table 3-7). */
function endOfCharacter(b: Uint8Array, i: number, c: number): number {
  const c1 = b[i + 1] ?? 0;
  if (c >= 0xc2 && c <= 0xdf) return isTail(c1) ? i + 2 : -1;
  const c2 = b[i + 2] ?? 0;
  if (c >= 0xe0 && c <= 0xef) {
    const low = c === 0xe0 ? 0xa0 : 0x80;
    const high = c === 0xed ? 0x9f : 0xbf;
    return c1 >= low && c1 <= high && isTail(c2) ? i + 3 : -1;
  }
  const c3 = b[i + 3] ?? 0;
  if (c >= 0xf0 && c <= 0xf4) {
    const low = c === 0xf0 ? 0x90 : 0x80;
    const high = c === 0xf4 ? 0x8f : 0xbf;
    return c1 >= low && c1 <= high && isTail(c2) && isTail(c3) ? i + 4 : -1;
  }
  return -1;
}

function isTail(c: number): boolean {
  return c >= 0x80 && c <= 0xbf;
}

const decoder = new TextDecoder();

/** A key's bytes (quotes included) → the key; escapes and non-ASCII through the decoder. */
function readKey(b: Uint8Array, start: number, end: number): string {
  let ascii = '';
  for (let k = start + 1; k < end - 1; k++) {
    const c = b[k]!;
    if (c === BACKSLASH || c >= 0x80) return JSON.parse(decoder.decode(b.subarray(start, end))) as string;
    ascii += String.fromCharCode(c);
  }
  return ascii;
}
