import { BACKSLASH, COLON, QUOTE } from '../../http/json-chars.ts';
import { ByteMarks, JsonTemplate, MAX_DIGITS, skipInteger } from '../../http/json-template.ts';
import { readExactStringBody } from '../../http/json-text-span.ts';
import { utf8Length } from '../../http/text-bytes.ts';
import type { GeminiGenerateContentResponse, GeminiPart } from './wire-types.ts';

const ZERO = 0x30;
const NINE = 0x39;

const encoder = new TextEncoder();
/**
 * The one string a chunk's tail holds that changes from stream to stream (Google's own id for the
 * answer): skipped like the integers, so a template learned from one stream reads the next.
 */
const RESPONSE_ID = encoder.encode('responseId');
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A Gemini text chunk repeats the one before it but for its text and its running usage counts:
 * `{"candidates":[{"content":{"parts":[{"text":"<text>"}],"role":"model"},"index":0}],
 * "usageMetadata":{"promptTokenCount":312,"candidatesTokenCount":<n>,…},"modelVersion":…}`. A
 * template keeps such a chunk's JSON before its text exactly, and after it exactly but for its
 * integers (each run of digits outside a string) and its `responseId`, so a later chunk, of this
 * stream or of the next, is matched from its bytes without a parse: its text left in place (see
 * JsonTextSpan), its usage read only when wanted, by parsing the template's text around the last
 * matched chunk's tail (`readTail`). Bytes that match are a chunk that parses to the template's
 * with another text, other integers and another response id, which is all the reader reads of
 * such a chunk (its response id it takes from the stream's first chunk); anything else is left to
 * the parser. Only `end` changes once a template is made, and a reader reads it right after its
 * match: the streams of one model share a template.
 */
export class GeminiChunkTemplate {
  readonly #text: JsonTemplate<GeminiGenerateContentResponse>;
  /**
   * Mark 0: the text before the body. Marks 1 on: the text after it, cut at its integers and at
   * the response id's body, one of them between each two marks.
   */
  readonly #marks: ByteMarks;
  /** By mark: whether the response id's body follows it (else an integer does, or nothing). */
  readonly #beforeId: boolean[];
  /** Whether the part is a thought (`"thought":true`). */
  readonly thought: boolean;
  /**
   * Where the JSON of the chunk `match` last matched ends: read right after the match (templates
   * are shared, but a stream reads its chunk's end before any other stream can match).
   */
  end = -1;

  private constructor(text: JsonTemplate<GeminiGenerateContentResponse>, thought: boolean) {
    this.#text = text;
    this.thought = thought;
    const head = utf8Length(text.before, 0, text.before.length);
    const bytes = encoder.encode(`${text.before}${text.after}`);
    const { cuts, beforeId } = cutMarks(bytes, head);
    this.#marks = new ByteMarks(bytes, cuts);
    this.#beforeId = beforeId;
  }

  /**
   * A template of `data` (its parse: `chunk`) when the reader takes nothing from it but its one
   * part's text and its usage: one candidate with no finish reason, one part that is a text (or a
   * thought) with no signature, and no error or prompt feedback.
   */
  static learn(data: string, chunk: GeminiGenerateContentResponse): GeminiChunkTemplate | undefined {
    if (chunk.error !== undefined || chunk.promptFeedback !== undefined || chunk.candidates?.length !== 1) return undefined;
    const candidate = chunk.candidates[0]!;
    // Grounding's offsets are integers a match would skip: a chunk carrying it is always parsed.
    if (candidate.finishReason !== undefined || candidate.groundingMetadata !== undefined || candidate.content?.parts?.length !== 1) return undefined;
    const part = candidate.content.parts[0]!;
    if (typeof part.text !== 'string' || part.text === '' || !onlyText(part)) return undefined;
    const text = JsonTemplate.learn<GeminiGenerateContentResponse>(data, 'text', (parsed) => parsed.candidates?.[0]?.content?.parts?.[0]);
    return text && new GeminiChunkTemplate(text, part.thought === true);
  }

  /**
   * Where the text's body ends (the index of its closing quote) when the bytes from `from` (up to
   * `limit`) are this template's chunk with another text and another response id, both written
   * as `JSON.stringify` writes them, and other integers; else -1. `view` is a DataView of all of
   * `bytes` (see ReadView). The body starts `headLength` bytes after
   * `from`; the chunk's JSON ends at `end`.
   */
  match(bytes: Uint8Array, view: DataView, from: number, limit: number): number {
    const marks = this.#marks;
    if (!marks.isAt(0, view, bytes, from, limit)) return -1;
    const quote = readExactStringBody(bytes, from + marks.length(0), limit);
    if (quote < 0) return -1;
    const last = marks.count - 1;
    let at = quote;
    for (let mark = 1; ; mark++) {
      if (!marks.isAt(mark, view, bytes, at, limit)) return -1;
      at += marks.length(mark);
      if (mark === last) break;
      at = this.#beforeId[mark] ? readExactStringBody(bytes, at, limit) : skipInteger(bytes, at, limit);
      if (at < 0) return -1;
    }
    this.end = at;
    return quote;
  }

  get headLength(): number {
    return this.#marks.length(0);
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
 * Where a template's marks lie in `bytes` (the text before the body, then from `from` on the text
 * after it), start and end of each in pairs: the text before, then the text after cut around each
 * run of digits that is a whole non-negative integer outside a string, and around the body of the
 * response id's string. Digits inside strings, and those of a fraction, an exponent or a negative
 * number, stay in the marks. `beforeId[k]` tells whether the response id follows mark k.
 */
function cutMarks(bytes: Uint8Array, from: number): { cuts: number[]; beforeId: boolean[] } {
  const cuts: number[] = [0, from];
  const beforeId = [false];
  let markStart = from;
  // The text after the body opens with the varying string's closing quote.
  let inString = true;
  let stringStart = -1;
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        const value = i + 2;
        if (bytes[i + 1] !== COLON || bytes[value] !== QUOTE || !isResponseIdKey(bytes, stringStart, i)) continue;
        // Cut only where a match can skip it: a body JSON.stringify would write as it is.
        const close = readExactStringBody(bytes, value + 1, bytes.length);
        if (close < 0) continue;
        cuts.push(markStart, value + 1);
        beforeId.push(true);
        markStart = close;
        i = close;
      }
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      stringStart = i + 1;
      continue;
    }
    if (c < ZERO || c > NINE) continue;
    let end = i;
    while (end < bytes.length && bytes[end]! >= ZERO && bytes[end]! <= NINE) end++;
    const before = bytes[i - 1];
    const next = bytes[end];
    const whole = before !== 0x2d && before !== 0x2e && before !== 0x2b && before !== 0x65 && before !== 0x45 && next !== 0x2e && next !== 0x65 && next !== 0x45;
    if (whole && end - i <= MAX_DIGITS) {
      cuts.push(markStart, i);
      beforeId.push(false);
      markStart = end;
    }
    i = end - 1;
  }
  cuts.push(markStart, bytes.length);
  return { cuts, beforeId };
}

/** Whether the string whose body is `bytes[start, end)` is written `responseId`. */
function isResponseIdKey(bytes: Uint8Array, start: number, end: number): boolean {
  if (start < 0 || end - start !== RESPONSE_ID.length) return false;
  for (let i = 0; i < RESPONSE_ID.length; i++) if (bytes[start + i] !== RESPONSE_ID[i]) return false;
  return true;
}
