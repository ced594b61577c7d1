import { BACKSLASH, QUOTE } from '../../http/json-chars.ts';
import { ByteMark, JsonTemplate } from '../../http/json-template.ts';
import { readExactStringBody } from '../../http/json-text-span.ts';
import type { GeminiGenerateContentResponse, GeminiPart } from './wire-types.ts';

const ZERO = 0x30;
const NINE = 0x39;
/** Longer runs of digits are left to the parser (no usage count has them). */
const MAX_DIGITS = 15;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A Gemini text chunk repeats the one before it but for its text and its running usage counts:
 * `{"candidates":[{"content":{"parts":[{"text":"<text>"}],"role":"model"},"index":0}],
 * "usageMetadata":{"promptTokenCount":312,"candidatesTokenCount":<n>,…},"modelVersion":…}`. A
 * template keeps such a chunk's JSON before its text exactly, and after it exactly but for its
 * integers (each run of digits outside a string), so a later chunk is matched from its bytes
 * without a parse: its text left in place (see JsonTextSpan), its usage read only when wanted, by
 * parsing the template's text around the last matched chunk's tail (`readTail`). Bytes that match
 * are a chunk that parses to the template's with another text and other integers, which is all
 * the reader reads of such a chunk; anything else is left to the parser.
 */
export class GeminiChunkTemplate {
  readonly #text: JsonTemplate<GeminiGenerateContentResponse>;
  readonly #head: ByteMark;
  /** The text after the body, cut at its integers: `#marks.length - 1` runs of digits, one between each two marks. */
  readonly #marks: ByteMark[];
  /** Whether the part is a thought (`"thought":true`). */
  readonly thought: boolean;
  /** Where the JSON of the chunk `match` last matched ends. */
  end = -1;
  #view: DataView | undefined;
  #viewOf: Uint8Array | undefined;

  private constructor(text: JsonTemplate<GeminiGenerateContentResponse>, thought: boolean) {
    this.#text = text;
    this.thought = thought;
    this.#head = new ByteMark(text.before);
    this.#marks = splitAtIntegers(encoder.encode(text.after)).map((bytes) => new ByteMark(bytes));
  }

  /**
   * A template of `data` (its parse: `chunk`) when the reader takes nothing from it but its one
   * part's text and its usage: one candidate with no finish reason, one part that is a text (or a
   * thought) with no signature, and no error or prompt feedback.
   */
  static learn(data: string, chunk: GeminiGenerateContentResponse): GeminiChunkTemplate | undefined {
    if (chunk.error !== undefined || chunk.promptFeedback !== undefined || chunk.candidates?.length !== 1) return undefined;
    const candidate = chunk.candidates[0]!;
    if (candidate.finishReason !== undefined || candidate.content?.parts?.length !== 1) return undefined;
    const part = candidate.content.parts[0]!;
    if (typeof part.text !== 'string' || part.text === '' || !onlyText(part)) return undefined;
    const text = JsonTemplate.learn<GeminiGenerateContentResponse>(data, 'text', (parsed) => parsed.candidates?.[0]?.content?.parts?.[0]);
    return text && new GeminiChunkTemplate(text, part.thought === true);
  }

  /**
   * Where the text's body ends (the index of its closing quote) when the bytes from `from` (up to
   * `limit`) are this template's chunk with another text, written as `JSON.stringify` writes it,
   * and other integers; else -1. The body starts `headLength` bytes after `from`; the chunk's JSON
   * ends at `end`.
   */
  match(bytes: Uint8Array, from: number, limit: number): number {
    if (this.#viewOf !== bytes) {
      this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      this.#viewOf = bytes;
    }
    const view = this.#view!;
    if (!this.#head.isAt(view, bytes, from, limit)) return -1;
    const quote = readExactStringBody(bytes, from + this.#head.length, limit);
    if (quote < 0) return -1;
    const marks = this.#marks;
    let at = quote;
    for (let i = 0; ; i++) {
      const mark = marks[i]!;
      if (!mark.isAt(view, bytes, at, limit)) return -1;
      at += mark.length;
      if (i === marks.length - 1) break;
      at = skipInteger(bytes, at, limit);
      if (at < 0) return -1;
    }
    this.end = at;
    return quote;
  }

  get headLength(): number {
    return this.#head.length;
  }

  /** What a chunk parses to whose JSON after its text is `bytes[from, to)` (from a matched chunk's closing quote to its end). */
  readTail(bytes: Uint8Array, from: number, to: number): GeminiGenerateContentResponse {
    return JSON.parse(`${this.#text.before}${decoder.decode(bytes.subarray(from, to))}`) as GeminiGenerateContentResponse;
  }
}

/** A part with a text and nothing else the reader reads (a thought flag at most). */
function onlyText(part: GeminiPart): boolean {
  for (const key in part) if (key !== 'text' && !(key === 'thought' && part.thought === true)) return false;
  return true;
}

/**
 * `after` (a template's text from the varying string's closing quote on) cut around each run of
 * digits that is a whole non-negative integer outside a string; digits inside strings, and those
 * of a fraction, an exponent or a negative number, stay in the marks.
 */
function splitAtIntegers(after: Uint8Array): Uint8Array[] {
  const marks: Uint8Array[] = [];
  let markStart = 0;
  // `after` opens with the varying string's closing quote.
  let inString = true;
  for (let i = 0; i < after.length; i++) {
    const c = after[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      continue;
    }
    if (c < ZERO || c > NINE) continue;
    let end = i;
    while (end < after.length && after[end]! >= ZERO && after[end]! <= NINE) end++;
    const before = after[i - 1];
    const next = after[end];
    const whole = before !== 0x2d && before !== 0x2e && before !== 0x2b && before !== 0x65 && before !== 0x45 && next !== 0x2e && next !== 0x65 && next !== 0x45;
    if (whole && end - i <= MAX_DIGITS) {
      marks.push(after.subarray(markStart, i));
      markStart = end;
    }
    i = end - 1;
  }
  marks.push(after.subarray(markStart));
  return marks;
}

/** Past a JSON non-negative integer at `at` (`0`, or digits not starting with 0, at most MAX_DIGITS), or -1. */
function skipInteger(bytes: Uint8Array, at: number, limit: number): number {
  const first = bytes[at];
  if (at >= limit || first === undefined || first < ZERO || first > NINE) return -1;
  if (first === ZERO) return at + 1;
  let i = at + 1;
  while (i < limit && bytes[i]! >= ZERO && bytes[i]! <= NINE) i++;
  return i - at <= MAX_DIGITS ? i : -1;
}
