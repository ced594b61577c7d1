import type { OpenAIChatCompletion, OpenAIMessageFields } from './types.ts';

/** The delta fields a run of chunks may vary in while everything else stays the same. */
const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning'] as const;
type TextField = (typeof TEXT_FIELDS)[number];

/** Put where the varying string was to check, with one parse, that the template found the right one. */
const PROBE = 'switchyard-template-probe';

/**
 * Most chunks of an OpenAI-compatible stream repeat the one before but for the text of one delta
 * field: `{"id":…,"choices":[{"index":0,"delta":{"content":"<text>"},…}]}`. A template keeps
 * the chunk's JSON text before and after that string, so a later chunk is read by comparing its
 * two ends and decoding what lies between them instead of by `JSON.parse`, which costs ~1 µs per
 * ~200-byte chunk on Node 20 and was the largest item of a translated stream's own work.
 *
 * `fill` answers exactly what `JSON.parse` would, or undefined (then the caller parses): the ends
 * are byte for byte those of a chunk that parsed to this shape, and the middle is accepted only
 * as a complete JSON string body. Any other text in between (an unescaped quote, a raw control
 * character, a bad escape) could change the structure, so it is never guessed at.
 */
export class ChunkTemplate {
  readonly #before: string;
  readonly #after: string;
  /** A parse of the template text (not the caller's chunk), handed out again with the new text. */
  readonly #chunk: OpenAIChatCompletion;
  readonly #delta: OpenAIMessageFields;
  readonly #field: TextField;

  private constructor(before: string, after: string, chunk: OpenAIChatCompletion, delta: OpenAIMessageFields, field: TextField) {
    this.#before = before;
    this.#after = after;
    this.#chunk = chunk;
    this.#delta = delta;
    this.#field = field;
  }

  /**
   * A template from a chunk whose only effect on a reader is its delta's text: a first choice
   * with exactly one of the text fields set and no finish reason, tool calls, usage or error.
   * `data` is the chunk's text, `chunk` its parse.
   */
  static learn(data: string, chunk: OpenAIChatCompletion): ChunkTemplate | undefined {
    if (chunk.usage || chunk.x_groq?.usage || chunk.error !== undefined || chunk.choices?.length !== 1) return undefined;
    const choice = chunk.choices[0]!;
    const delta = choice.delta;
    if ((choice.index ?? 0) !== 0 || choice.finish_reason || !delta || delta.tool_calls?.length || typeof delta.refusal === 'string') return undefined;
    const fields = TEXT_FIELDS.filter((name) => delta[name] !== undefined && delta[name] !== null);
    if (fields.length !== 1 || typeof delta[fields[0]!] !== 'string') return undefined;
    const field = fields[0]!;
    const span = findStringValue(data, field);
    if (!span) return undefined;
    const before = data.slice(0, span.start);
    const after = data.slice(span.end);
    let probe: OpenAIChatCompletion;
    try {
      probe = JSON.parse(`${before}${PROBE}${after}`) as OpenAIChatCompletion;
    } catch {
      return undefined;
    }
    const probeDelta = probe.choices?.[0]?.delta;
    if (!probeDelta || probeDelta[field] !== PROBE) return undefined;
    return new ChunkTemplate(before, after, probe, probeDelta, field);
  }

  /** The chunk `data` parses to, when it is this template with other text; else undefined. */
  fill(data: string): OpenAIChatCompletion | undefined {
    const before = this.#before;
    const after = this.#after;
    const end = data.length - after.length;
    // Slices compared with ===, not startsWith/endsWith: with those, a reader loop over the bench's
    // stream on Node 20 took as long as with JSON.parse (36 µs); with slices, 13 µs.
    if (end < before.length || data.slice(0, before.length) !== before || data.slice(end) !== after) return undefined;
    const text = readStringBody(data, before.length, end);
    if (text === undefined) return undefined;
    this.#delta[this.#field] = text;
    return this.#chunk;
  }
}

/**
 * Where the string value of `"<field>"` starts and ends (the quotes excluded), when the key occurs
 * once in the text. Inside a JSON string every quote is escaped, so `"<field>"` followed by a
 * colon is always a key; the probe parse in `learn` checks it is the delta's.
 */
function findStringValue(data: string, field: string): { start: number; end: number } | undefined {
  const key = `"${field}"`;
  const at = data.indexOf(key);
  if (at < 0 || data.indexOf(key, at + 1) >= 0) return undefined;
  let i = skipSpace(data, at + key.length);
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
