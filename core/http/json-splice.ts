import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars.ts';
import { utf8Length } from './text-bytes.ts';

/**
 * Replaces one top-level member's value in JSON text without parsing or re-serialising the rest,
 * so a passthrough body keeps its bytes (key order, number forms, escapes) and a 170 KB request
 * costs a scan instead of a `JSON.stringify`. `text` must be valid JSON (the caller parsed it).
 * Returns undefined when the key is missing or appears more than once at the top level (JSON.parse
 * keeps the last of duplicates; the caller then falls back to serialising the parsed object).
 * `present`: the caller's parse found `key` at the top level, which allows a shortcut.
 */
export function spliceTopLevel(text: string, key: string, json: string, present = false): string | undefined {
  const span = findTopLevel(text, key, present);
  return span && text.slice(0, span[0]) + json + text.slice(span[1]);
}

/**
 * The same splice made in `bytes`, the UTF-8 `text` is exactly (see readTextBytes): the rest of
 * the body is copied as bytes, so a large body is neither joined into a new string nor encoded
 * again (on Node 20 those two cost ~3 ms for a 400 KB body with some non-ASCII text, ten times
 * the copy).
 */
export function spliceTopLevelBytes(bytes: Uint8Array, text: string, key: string, json: string, present = false): Uint8Array | undefined {
  const span = findTopLevel(text, key, present);
  if (!span) return undefined;
  // Equal lengths: every character is one byte (ASCII), so the offsets are the same. Otherwise
  // they are counted from the nearer end (the Python SDK sends `model` after `messages`).
  let start = span[0];
  let end = span[1];
  if (text.length !== bytes.byteLength) {
    const value = utf8Length(text, span[0], span[1]);
    if (span[0] <= text.length - span[1]) start = utf8Length(text, 0, span[0]);
    else start = bytes.byteLength - utf8Length(text, span[1], text.length) - value;
    end = start + value;
  }
  return replaceBytes(bytes, 0, start, end, json);
}

/**
 * `bytes[from…]` with `bytes[start, end)` replaced by `json`'s UTF-8, copied once; the bytes
 * themselves, a view and no copy, when they already hold it (a client that names the upstream's
 * own id, as Claude Code does with the default catalogue).
 */
export function replaceBytes(bytes: Uint8Array, from: number, start: number, end: number, json: string): Uint8Array {
  const value = encoder.encode(json);
  if (sameBytes(bytes, start, end, value)) return from ? bytes.subarray(from) : bytes;
  const out = new Uint8Array(start - from + value.byteLength + bytes.byteLength - end);
  out.set(bytes.subarray(from, start));
  out.set(value, start - from);
  out.set(bytes.subarray(end), start - from + value.byteLength);
  return out;
}

function sameBytes(bytes: Uint8Array, start: number, end: number, value: Uint8Array): boolean {
  if (end - start !== value.length) return false;
  for (let i = 0; i < value.length; i++) if (bytes[start + i] !== value[i]) return false;
  return true;
}

const encoder = new TextEncoder();

/** Where the value of the one top-level member `key` starts and ends in `text`. */
function findTopLevel(text: string, key: string, present: boolean): [number, number] | undefined {
  if (present && text.length <= SHORTCUT_CHARS) {
    const span = findOnly(text, key);
    if (span !== undefined) return span;
  }
  let found: [number, number] | undefined;
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i = skipSpace(text, i + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = endOfString(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const name = raw.includes('\\') ? (JSON.parse(text.slice(i, keyEnd)) as string) : raw;
    i = skipSpace(text, keyEnd) + 1; // past ':'
    const start = skipSpace(text, i);
    const end = endOfValue(text, start);
    if (name === key) {
      if (found) return undefined;
      found = [start, end];
    }
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return found;
}

/**
 * Up to this length the shortcut below is faster than the walk; past it, its searches for `"key"`
 * (slow in both V8 and JavaScriptCore: the quote is everywhere) cost more than the walk, ~4× at
 * 160 KB (measured on Node 20 and Bun 1.4, ~8 KB where they cross).
 */
const SHORTCUT_CHARS = 8 * 1024;

/**
 * The walk above, skipped where it cannot find anything else: `present` says the caller's parse
 * found `key` (letters only) as a top-level member, so it is written in the text, literally or
 * with \u escapes. If `"key"` occurs once and the text has no \u escape, that occurrence is the
 * member and no escaped duplicate can follow it; its value is found after a native search
 * instead of a walk over every member before and after it.
 */
function findOnly(text: string, key: string): [number, number] | undefined {
  const quoted = `"${key}"`;
  const at = text.indexOf(quoted);
  if (at < 0 || text.indexOf(quoted, at + quoted.length) >= 0 || text.includes('\\u')) return undefined;
  const start = skipSpace(text, skipSpace(text, at + quoted.length) + 1);
  return [start, endOfValue(text, start)];
}


function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** `i` at an opening quote → the index just past its closing quote (native indexOf between escapes). */
function endOfString(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** `i` at the first character of a value → the index just past it. */
function endOfValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return endOfString(text, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    // A number, true, false or null: runs to the next delimiter.
    let j = i;
    for (;;) {
      const d = text.charCodeAt(j);
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09 || Number.isNaN(d)) return j;
      j++;
    }
  }
  let depth = 0;
  let j = i;
  for (;;) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) {
      j = endOfString(text, j);
      continue;
    }
    if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
}
