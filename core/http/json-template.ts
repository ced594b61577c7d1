import { readExactStringBody } from './json-text-span.ts';

const encoder = new TextEncoder();

/** Put where the varying string was, to check with one parse that the template found the right one. */
const PROBE = 'switchyard-template-probe';

/**
 * Most events of a model's stream repeat the one before but for one string: the delta's text,
 * `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"<text>"}}` or
 * `{"id":…,"choices":[{"index":0,"delta":{"content":"<text>"},…}]}`. A template keeps an event's
 * JSON text before and after that string, so a later event is read by comparing its two ends and
 * decoding what lies between them instead of by `JSON.parse` (~0.5–1 µs per event on Node 20, the
 * largest item of a translated stream's own work).
 *
 * `fill` answers exactly what `JSON.parse` would, or undefined (then the caller parses): the ends
 * are character for character those of an event that parsed to this shape, and the middle is
 * accepted only as a whole JSON string body. Anything else in between (an unescaped quote, a raw
 * control character, a bad escape) could change the structure, so it is never guessed at. The
 * object handed out is the same one each time with the new string in it: for readers that take
 * what they need from an event and keep nothing of it.
 */
export class JsonTemplate<T> {
  readonly #before: string;
  readonly #after: string;
  readonly #value: T;
  readonly #holder: Record<string, unknown>;
  readonly #key: string;
  // The two ends as UTF-8, for `matchBytes`; made on its first call.
  #head: ByteMark | undefined;
  #tail: ByteMark | undefined;
  // A view of the last bytes matched: one per upstream read, not per event.
  #view: DataView | undefined;
  #viewOf: Uint8Array | undefined;

  private constructor(before: string, after: string, value: T, holder: Record<string, unknown>, key: string) {
    this.#before = before;
    this.#after = after;
    this.#value = value;
    this.#holder = holder;
    this.#key = key;
  }

  /**
   * A template of `data` whose varying part is the string under `key` in the object `holderOf`
   * picks from a parse; undefined when that key is not found exactly once in the text. Which
   * events may vary only there is the caller's to decide.
   */
  static learn<T>(data: string, key: string, holderOf: (parsed: T) => unknown): JsonTemplate<T> | undefined {
    const span = findStringValue(data, key);
    if (!span) return undefined;
    // Copies, not slices: a slice would keep the whole decoded upstream read alive as long as the
    // template (the stream's life).
    const before = copyOf(data.slice(0, span.start));
    const after = copyOf(data.slice(span.end));
    let value: T;
    try {
      value = JSON.parse(`${before}${PROBE}${after}`) as T;
    } catch {
      return undefined;
    }
    const holder = holderOf(value);
    if (typeof holder !== 'object' || holder === null || (holder as Record<string, unknown>)[key] !== PROBE) return undefined;
    return new JsonTemplate(before, after, value, holder as Record<string, unknown>, key);
  }

  /** What `data` parses to, when it is this template with another string; else undefined. */
  fill(data: string): T | undefined {
    const before = this.#before;
    const after = this.#after;
    const end = data.length - after.length;
    // Slices compared with ===, not startsWith/endsWith: with those, a reader loop over the bench's
    // OpenAI stream on Node 20 took as long as with JSON.parse (36 µs); with slices, 13 µs.
    if (end < before.length || data.slice(0, before.length) !== before || data.slice(end) !== after) return undefined;
    const text = readStringBody(data, before.length, end);
    if (text === undefined) return undefined;
    this.#holder[this.#key] = text;
    return this.#value;
  }

  /**
   * Where the varying string's body ends (the index of its closing quote), when the bytes from
   * `from` (up to `limit`) are this template's text with another string whose body
   * `JSON.stringify` would write back byte for byte (see `readExactStringBody`); else -1. The body
   * starts `headLength` bytes after `from`, and the text ends `tailLength` bytes after the quote.
   * Such bytes parse to what `fill` gives for their text; a stricter test than `fill`'s, so that a
   * writer can copy the body as it is.
   */
  matchBytes(bytes: Uint8Array, from: number, limit: number): number {
    const head = (this.#head ??= new ByteMark(this.#before));
    const tail = (this.#tail ??= new ByteMark(this.#after));
    if (this.#viewOf !== bytes) {
      this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      this.#viewOf = bytes;
    }
    const view = this.#view!;
    if (!head.isAt(view, bytes, from, limit)) return -1;
    const quote = readExactStringBody(bytes, from + head.length, limit);
    return quote >= 0 && tail.isAt(view, bytes, quote, limit) ? quote : -1;
  }

  /** The JSON text before the varying string's body, and after it (from its closing quote on). */
  get before(): string {
    return this.#before;
  }

  get after(): string {
    return this.#after;
  }

  get headLength(): number {
    return (this.#head ??= new ByteMark(this.#before)).length;
  }

  get tailLength(): number {
    return (this.#tail ??= new ByteMark(this.#after)).length;
  }
}

/**
 * A template's end as UTF-8, compared four bytes at a time: the ends of an OpenAI chunk are
 * ~250 bytes, and byte by byte that was the largest cost of reading a chunk from its bytes.
 */
export class ByteMark {
  readonly bytes: Uint8Array;
  readonly #words: Int32Array;

  /** `text` as UTF-8, or those bytes already. */
  constructor(text: string | Uint8Array) {
    const bytes = (this.bytes = typeof text === 'string' ? encoder.encode(text) : text);
    // By hand, not through a DataView: on Bun a view of a new array copies it first.
    this.#words = new Int32Array(bytes.length >> 2);
    for (let i = 0; i < this.#words.length; i++) {
      const at = i * 4;
      this.#words[i] = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
    }
  }

  get length(): number {
    return this.bytes.length;
  }

  /** Whether `bytes` (seen through `view`) holds the mark at `at`, wholly before `limit`. */
  isAt(view: DataView, bytes: Uint8Array, at: number, limit: number): boolean {
    const mark = this.bytes;
    if (at + mark.length > limit) return false;
    const words = this.#words;
    for (let i = 0; i < words.length; i++) if (view.getInt32(at + i * 4, true) !== words[i]) return false;
    for (let i = words.length * 4; i < mark.length; i++) if (bytes[at + i] !== mark[i]) return false;
    return true;
  }
}

/**
 * Where the string value of `"<key>"` starts and ends (quotes excluded), when the key occurs once
 * in the text. Inside a JSON string every quote is escaped, so `"<key>"` followed by a colon is
 * always a key; the probe parse in `learn` checks it is the one the caller meant.
 */
function findStringValue(data: string, key: string): { start: number; end: number } | undefined {
  const quoted = `"${key}"`;
  const at = data.indexOf(quoted);
  if (at < 0 || data.indexOf(quoted, at + 1) >= 0) return undefined;
  let i = skipSpace(data, at + quoted.length);
  if (data.charCodeAt(i) !== 0x3a) return undefined;
  i = skipSpace(data, i + 1);
  if (data.charCodeAt(i) !== 0x22) return undefined;
  const start = i + 1;
  for (let j = start; j < data.length; j++) {
    const c = data.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return { start, end: j };
  }
  return undefined;
}

/** A string with its own storage (V8 flattens the concatenation into a new string before slicing it). */
function copyOf(text: string): string {
  return `${text} `.slice(0, -1);
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/** The string whose JSON body is `text[from, to)`, or undefined when that is not a whole string body. */
function readStringBody(text: string, from: number, to: number): string | undefined {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) {
      // Escapes: JSON.parse decodes them, and throws when an unescaped quote ends the string early.
      try {
        return JSON.parse(`"${text.slice(from, to)}"`) as string;
      } catch {
        return undefined;
      }
    }
    if (c === 0x22 || c < 0x20) return undefined;
  }
  return text.slice(from, to);
}
