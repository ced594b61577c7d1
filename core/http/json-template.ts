import { readExactStringBody } from './json-text-span.ts';
import { utf8Length } from './text-bytes.ts';

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
  // The two ends as UTF-8 (marks 0 and 1), for `matchBytes`; made on its first call.
  #marks: ByteMarks | undefined;

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
   * writer can copy the body as it is. `view` is a DataView of all of `bytes` (see ReadView).
   */
  matchBytes(bytes: Uint8Array, view: DataView, from: number, limit: number): number {
    const marks = this.#byteMarks();
    if (!marks.isAt(0, view, bytes, from, limit)) return -1;
    const quote = readExactStringBody(bytes, from + marks.length(0), limit);
    return quote >= 0 && marks.isAt(1, view, bytes, quote, limit) ? quote : -1;
  }

  #byteMarks(): ByteMarks {
    if (this.#marks) return this.#marks;
    const head = utf8Length(this.#before, 0, this.#before.length);
    const bytes = encoder.encode(`${this.#before}${this.#after}`);
    return (this.#marks = new ByteMarks(bytes, [0, head, head, bytes.length]));
  }

  /** The JSON text before the varying string's body, and after it (from its closing quote on). */
  get before(): string {
    return this.#before;
  }

  get after(): string {
    return this.#after;
  }

  get headLength(): number {
    return this.#byteMarks().length(0);
  }

  get tailLength(): number {
    return this.#byteMarks().length(1);
  }
}

/**
 * A DataView of the upstream read a stream last matched a template in: one per read, not per
 * event. A stream reader keeps its own, not its template (templates are shared between streams,
 * see TemplateCache, and one would keep an old read alive).
 */
export class ReadView {
  #bytes: Uint8Array | undefined;
  #view: DataView | undefined;

  of(bytes: Uint8Array): DataView {
    if (this.#bytes !== bytes) {
      this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      this.#bytes = bytes;
    }
    return this.#view!;
  }
}

/**
 * A template's fixed runs of UTF-8 (its marks), found in other bytes by comparing four bytes at a
 * time: the ends of an OpenAI chunk are ~250 bytes, and byte by byte that was the largest cost of
 * reading a chunk from its bytes. The marks share one array of bytes and one of words: a template
 * is learned per stream, and a view and an Int32Array per mark cost more than the matching of a
 * short answer (on Bun, the first view of a new small array copies it out; on Node 20 an
 * Int32Array over 64 bytes is a backing store of its own).
 */
export class ByteMarks {
  readonly #bytes: Uint8Array;
  /** Per mark: where it starts in `#bytes`, its length, and where its words start in `#words`. */
  readonly #starts: number[] = [];
  readonly #lengths: number[] = [];
  readonly #wordStarts: number[] = [];
  readonly #words: Int32Array;

  /** Marks over `bytes` (an array of their own), each from `cuts[2k]` to `cuts[2k + 1]`. */
  constructor(bytes: Uint8Array, cuts: readonly number[]) {
    this.#bytes = bytes;
    let count = 0;
    for (let k = 0; k < cuts.length; k += 2) count += (cuts[k + 1]! - cuts[k]!) >> 2;
    const words = (this.#words = new Int32Array(count));
    let w = 0;
    for (let k = 0; k < cuts.length; k += 2) {
      const start = cuts[k]!;
      const length = cuts[k + 1]! - start;
      this.#starts.push(start);
      this.#lengths.push(length);
      this.#wordStarts.push(w);
      // By hand, not through a DataView: on Bun a view of a new array copies it first.
      for (let at = start; at + 4 <= start + length; at += 4) words[w++] = bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
    }
  }

  get count(): number {
    return this.#lengths.length;
  }

  length(mark: number): number {
    return this.#lengths[mark]!;
  }

  /** Whether `bytes` (seen through `view`) holds mark number `mark` at `at`, wholly before `limit`. */
  isAt(mark: number, view: DataView, bytes: Uint8Array, at: number, limit: number): boolean {
    const length = this.#lengths[mark]!;
    if (at + length > limit) return false;
    const words = this.#words;
    const first = this.#wordStarts[mark]!;
    const whole = length >> 2;
    for (let i = 0; i < whole; i++) if (view.getInt32(at + i * 4, true) !== words[first + i]) return false;
    const own = this.#bytes;
    const start = this.#starts[mark]!;
    for (let i = whole * 4; i < length; i++) if (bytes[at + i] !== own[start + i]) return false;
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
