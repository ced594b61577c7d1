import { readExactStringBody } from './json-text-span.ts';
import { utf8Length } from './text-bytes.ts';

const encoder = new TextEncoder();

/** Put where the varying string was, to check with one parse that the template found the right one. */
const PROBE = 'switchyard-template-probe';
/** Put in place of a varying integer for the same check: longer than MAX_DIGITS, so no varying value is it. */
const PROBE_INTEGER = 9007199254740991;

const ZERO = 0x30;
const NINE = 0x39;
/** Longer runs of digits are left to the parser (no count or timestamp has them). */
export const MAX_DIGITS = 15;

/** What fills a gap between two of a template's fixed runs. */
const TEXT = 0;
const STRING = 1;
const INTEGER = 2;
type GapKind = typeof TEXT | typeof STRING | typeof INTEGER;

/**
 * Most events of a model's stream repeat the one before but for one string: the delta's text,
 * `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"<text>"}}` or
 * `{"id":…,"choices":[{"index":0,"delta":{"content":"<text>"},…}]}`. A template keeps an event's
 * JSON text around that string, so a later event is read by comparing its fixed runs and decoding
 * what lies between them instead of by `JSON.parse` (~0.5–1 µs per event on Node 20, the largest
 * item of a translated stream's own work). Some top-level values may vary too (`varying` in
 * `learn`): an OpenAI chunk's id and creation time change from stream to stream, and OpenAI's
 * `obfuscation` from chunk to chunk; they are skipped as whole strings or integers.
 *
 * `fill` answers exactly what `JSON.parse` would, or undefined (then the caller parses): the fixed
 * runs are character for character those of an event that parsed to this shape, and each gap is
 * accepted only as a whole JSON string body (or a plain integer, where one was). Anything else in
 * between (an unescaped quote, a raw control character, a bad escape) could change the structure,
 * so it is never guessed at. The object handed out is the same one each time with the new values
 * in it: for readers that take what they need from an event and keep nothing of it. Besides that
 * object, only `start` and `end` change after `learn`, and a reader reads them right after its
 * `matchBytes`: templates are shared between the streams of one model (see TemplateCache).
 */
export class JsonTemplate<T> {
  readonly #before: string;
  readonly #after: string;
  readonly #value: T;
  readonly #holder: Record<string, unknown>;
  readonly #key: string;
  /** The learned text's fixed runs, one more than the gaps between them. */
  readonly #pieces: string[];
  readonly #kinds: GapKind[];
  /** By gap: the top-level key its value goes to (the text's goes to `#key` in `#holder`). */
  readonly #keys: string[];
  // The fixed runs as UTF-8 (a mark each), for `matchBytes`; made on its first call.
  #marks: ByteMarks | undefined;
  /** Where the varying string's body starts, and where the JSON text ends, in the bytes `matchBytes` last matched. */
  start = -1;
  end = -1;

  private constructor(before: string, after: string, value: T, holder: Record<string, unknown>, key: string, gaps: readonly Gap[], text: string) {
    this.#before = before;
    this.#after = after;
    this.#value = value;
    this.#holder = holder;
    this.#key = key;
    this.#pieces = [];
    this.#kinds = [];
    this.#keys = [];
    let at = 0;
    for (const gap of gaps) {
      this.#pieces.push(copyOf(text.slice(at, gap.from)));
      this.#kinds.push(gap.kind);
      this.#keys.push(gap.key);
      at = gap.to;
    }
    this.#pieces.push(copyOf(text.slice(at)));
  }

  /**
   * A template of `data` whose varying string is the one under `key` in the object `holderOf`
   * picks from a parse, and whose top-level `varying` keys may hold other strings or integers;
   * undefined when that key is not found exactly once in the text. A `varying` key not found
   * exactly once, or not holding a string or a non-negative integer, stays as it is. Which events
   * may vary only there is the caller's to decide.
   */
  static learn<T>(data: string, key: string, holderOf: (parsed: T) => unknown, varying: readonly string[] = []): JsonTemplate<T> | undefined {
    const span = findStringValue(data, key);
    if (!span) return undefined;
    const gaps: Gap[] = [{ from: span.start, to: span.end, kind: TEXT, key }];
    for (const name of varying) {
      const gap = findVaryingValue(data, name);
      if (gap && (gap.to <= span.start || gap.from >= span.end)) gaps.push(gap);
    }
    gaps.sort((a, b) => a.from - b.from);
    // Copies, not slices: a slice would keep the whole decoded upstream read alive as long as the
    // template.
    const before = copyOf(data.slice(0, span.start));
    const after = copyOf(data.slice(span.end));
    let probe = '';
    let at = 0;
    for (const gap of gaps) {
      probe += `${data.slice(at, gap.from)}${gap.kind === INTEGER ? PROBE_INTEGER : PROBE}`;
      at = gap.to;
    }
    let value: T;
    try {
      value = JSON.parse(`${probe}${data.slice(at)}`) as T;
    } catch {
      return undefined;
    }
    const holder = holderOf(value);
    if (typeof holder !== 'object' || holder === null || (holder as Record<string, unknown>)[key] !== PROBE) return undefined;
    for (const gap of gaps) {
      // A varying key found somewhere else than at the top (a nested one of that name): the
      // template is learned with no values varying.
      if (gap.kind !== TEXT && (value as Record<string, unknown>)[gap.key] !== (gap.kind === INTEGER ? PROBE_INTEGER : PROBE)) return JsonTemplate.learn(data, key, holderOf);
    }
    return new JsonTemplate(before, after, value, holder as Record<string, unknown>, key, gaps, data);
  }

  /** What `data` parses to, when it is this template with other values where they may vary; else undefined. */
  fill(data: string): T | undefined {
    if (this.#kinds.length === 1) return this.#fillText(data);
    const pieces = this.#pieces;
    const kinds = this.#kinds;
    const values: Array<string | number> = [];
    let at = 0;
    for (let k = 0; k < kinds.length; k++) {
      const piece = pieces[k]!;
      if (data.slice(at, at + piece.length) !== piece) return undefined;
      at += piece.length;
      if (kinds[k] === INTEGER) {
        const end = skipIntegerText(data, at);
        if (end < 0) return undefined;
        values.push(Number(data.slice(at, end)));
        at = end;
        continue;
      }
      const quote = findQuote(data, at);
      const text = quote < 0 ? undefined : readStringBody(data, at, quote);
      if (text === undefined) return undefined;
      values.push(text);
      at = quote;
    }
    if (data.slice(at) !== pieces[kinds.length]) return undefined;
    const top = this.#value as Record<string, unknown>;
    for (let k = 0; k < kinds.length; k++) {
      if (kinds[k] === TEXT) this.#holder[this.#key] = values[k];
      else top[this.#keys[k]!] = values[k];
    }
    return this.#value;
  }

  /** `fill` when only the text varies: its two ends compared whole. */
  #fillText(data: string): T | undefined {
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
   * `from` (up to `limit`) are this template's text with another string, and other values where
   * they may vary, each string's body written as `JSON.stringify` writes it (see
   * `readExactStringBody`); else -1. The body starts at `start`, and the JSON text ends at `end`.
   * Such bytes parse to what `fill` gives for their text; a stricter test than `fill`'s, so that a
   * writer can copy the body as it is. `view` is a DataView of all of `bytes` (see ReadView).
   */
  matchBytes(bytes: Uint8Array, view: DataView, from: number, limit: number): number {
    const marks = this.#byteMarks();
    const kinds = this.#kinds;
    let at = from;
    let start = -1;
    let quote = -1;
    for (let k = 0; ; k++) {
      if (!marks.isAt(k, view, bytes, at, limit)) return -1;
      at += marks.length(k);
      if (k === kinds.length) break;
      const kind = kinds[k];
      if (kind === INTEGER) {
        at = skipInteger(bytes, at, limit);
      } else {
        if (kind === TEXT) start = at;
        at = readExactStringBody(bytes, at, limit);
        if (kind === TEXT) quote = at;
      }
      if (at < 0) return -1;
    }
    this.start = start;
    this.end = at;
    return quote;
  }

  #byteMarks(): ByteMarks {
    if (this.#marks) return this.#marks;
    const pieces = this.#pieces;
    const cuts: number[] = [];
    let text = '';
    let bytes = 0;
    for (const piece of pieces) {
      const length = utf8Length(piece, 0, piece.length);
      cuts.push(bytes, bytes + length);
      bytes += length;
      text += piece;
    }
    return (this.#marks = new ByteMarks(encoder.encode(text), cuts));
  }

  /** The JSON text before the varying string's body, and after it (from its closing quote on), as learned. */
  get before(): string {
    return this.#before;
  }

  get after(): string {
    return this.#after;
  }
}

/** A gap between a template's fixed runs, in the text it was learned from: `[from, to)`. */
interface Gap {
  from: number;
  to: number;
  kind: GapKind;
  key: string;
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
  const i = findValueOf(data, key);
  if (i < 0 || data.charCodeAt(i) !== 0x22) return undefined;
  const end = findQuote(data, i + 1);
  return end < 0 ? undefined : { start: i + 1, end };
}

/** Where the value of `"<key>"` starts, when the key occurs once in the text (followed by a colon); else -1. */
function findValueOf(data: string, key: string): number {
  const quoted = `"${key}"`;
  const at = data.indexOf(quoted);
  if (at < 0 || data.indexOf(quoted, at + 1) >= 0) return -1;
  const i = skipSpace(data, at + quoted.length);
  return data.charCodeAt(i) === 0x3a ? skipSpace(data, i + 1) : -1;
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

/**
 * Where the value of the key `name` lies, when `"<name>":` occurs once in the text and holds a
 * string (its body) or a non-negative integer of at most MAX_DIGITS digits. The probe parse in
 * `learn` checks it is the top-level one.
 */
function findVaryingValue(data: string, name: string): Gap | undefined {
  const i = findValueOf(data, name);
  if (i < 0) return undefined;
  if (data.charCodeAt(i) === 0x22) {
    const quote = findQuote(data, i + 1);
    return quote < 0 ? undefined : { from: i + 1, to: quote, kind: STRING, key: name };
  }
  const end = skipIntegerText(data, i);
  return end < 0 ? undefined : { from: i, to: end, kind: INTEGER, key: name };
}

/** The index of the quote that ends the string body starting at `from`, or -1. */
function findQuote(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j;
  }
  return -1;
}

/** Past a JSON non-negative integer at `at` in `text` (`0`, or digits not starting with 0, at most MAX_DIGITS), or -1. */
function skipIntegerText(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (!(first >= ZERO && first <= NINE)) return -1;
  let i = at + 1;
  if (first !== ZERO) while (i < text.length && text.charCodeAt(i) >= ZERO && text.charCodeAt(i) <= NINE) i++;
  const next = text.charCodeAt(i);
  // A fraction or an exponent makes it another number.
  if (next === 0x2e || next === 0x65 || next === 0x45 || (next >= ZERO && next <= NINE)) return -1;
  return i - at <= MAX_DIGITS ? i : -1;
}

/** Past a JSON non-negative integer at `at` (`0`, or digits not starting with 0, at most MAX_DIGITS), or -1. */
export function skipInteger(bytes: Uint8Array, at: number, limit: number): number {
  const first = bytes[at];
  if (at >= limit || first === undefined || first < ZERO || first > NINE) return -1;
  if (first === ZERO) return at + 1;
  let i = at + 1;
  while (i < limit && bytes[i]! >= ZERO && bytes[i]! <= NINE) i++;
  return i - at <= MAX_DIGITS ? i : -1;
}
