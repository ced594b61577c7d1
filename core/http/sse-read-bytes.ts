import { joinBytes } from './join-bytes.ts';
import type { JsonTemplate, ReadView } from './json-template.ts';
import { JsonTextSpan } from './json-text-span.ts';
import { createSseReader, eventTooLarge, MAX_SSE_EVENT_BYTES, type SseMessage } from './sse-read.ts';
import { pipeStages, type Stage } from './stage.ts';

const LF = 0x0a;
const CR = 0x0d;
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a]; // "data:"
const EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74, 0x3a]; // "event:"
const SPACE = 0x20;

// Where a scan is in an event's lines: in a line, past a CR that ended one (an LF must follow),
// at the start of a line, or past a CR at the start of one (the blank line's).
const IN_LINE = 0;
const CR_IN_LINE = 1;
const LINE_START = 2;
const CR_AT_START = 3;

// Whole events only: a character is never cut, and a body never starts with a byte-order mark
// the stream did not have at its start.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A reader of SSE messages that can also read some whole events from their bytes. */
export interface SseMessageReader<O> extends Stage<SseMessage, O> {
  /** Whether `takeEvent` may take an event now. */
  takes(): boolean;
  /**
   * Reads the event that starts at `from`, when it is one this reader knows by its bytes: where it
   * ends (past its blank line, at most `limit`). Otherwise -1, having emitted nothing and changed
   * nothing; the event is then decoded and pushed as a message.
   */
  takeEvent(bytes: Uint8Array, from: number, limit: number, emit: (out: O) => void): number;
}

/**
 * SSE bytes → `reader`'s output, one whole event at a time: an event the reader takes is read
 * from its bytes; an event that is one `data:` line, or an `event:` line and a `data:` line, is
 * decoded and pushed as the message the SSE parser would make of it, without the parser; any other
 * goes through the parser (`createSseReader`), which then always starts at an event. Lines may end
 * in LF or CRLF (Google's streams use CRLF): from the first CR that is not followed by an LF on,
 * the rest of the stream goes through the parser as it comes.
 */
export function createSseByteReader<O>(reader: SseMessageReader<O>, maxEvent = MAX_SSE_EVENT_BYTES): Stage<Uint8Array, O> {
  return new SseByteReader(reader, maxEvent);
}

class SseByteReader<O> implements Stage<Uint8Array, O> {
  readonly #reader: SseMessageReader<O>;
  /** The SSE parser before the reader, made for the first event that needs it (most streams: none). */
  #parsedStage: Stage<Uint8Array, O> | undefined;
  /** The start of an event not yet whole, from the reads before (copies, not views of them). */
  #held: Uint8Array[] = [];
  #heldSize = 0;
  #cutting = true;
  /** Where the first line of the event `#findEnd` last found ends, if it has two; -1: one line, -2: more. */
  #split = -1;
  /** Where that event's second line starts, and where its last line ends (before the blank line). */
  #second = -1;
  #last = -1;
  /** Where `#findEnd` stopped in the line structure, when the event was not whole: `#endOfHeld` goes on from there. */
  #state = IN_LINE;
  /**
   * The last read ended in the CR of an event's blank line, which ended that event (as the SSE
   * parser takes it, at once): an LF that starts the next read is that line end's second half.
   */
  #skipLF = false;

  /** The most of one event held before the stream is refused (MAX_SSE_EVENT_BYTES). */
  readonly #maxEvent: number;

  constructor(reader: SseMessageReader<O>, maxEvent: number) {
    this.#reader = reader;
    this.#maxEvent = maxEvent;
  }

  get #parsed(): Stage<Uint8Array, O> {
    return (this.#parsedStage ??= pipeStages(createSseReader(this.#maxEvent), this.#reader));
  }

  get stopped(): boolean {
    return this.#reader.stopped === true;
  }

  push(chunk: Uint8Array, emit: (out: O) => void): void {
    if (!this.#cutting) {
      this.#parsed.push(chunk, emit);
      return;
    }
    if (chunk.length === 0) return;
    let at = 0;
    if (this.#skipLF) {
      this.#skipLF = false;
      if (chunk[0] !== LF) {
        // A blank line that was a CR alone: the parser takes the rest, from this event on.
        this.#cutting = false;
        this.#parsed.push(chunk, emit);
        return;
      }
      at = 1;
    } else if (this.#heldSize > 0) {
      at = this.#endOfHeld(chunk);
      if (at === -1) {
        this.#hold(chunk.slice());
        return;
      }
      const held = this.#held;
      const size = this.#heldSize;
      this.#held = [];
      this.#heldSize = 0;
      if (at === -2) {
        this.#cutting = false;
        this.#parsed.push(joinBytes(held, size), emit);
        this.#parsed.push(chunk, emit);
        return;
      }
      held.push(chunk.subarray(0, at));
      const event = joinBytes(held, size + at);
      if (this.#read(event, 0, emit) < event.length) return;
    }
    const rest = this.#read(chunk, at, emit);
    if (rest < chunk.length && this.#cutting && !this.stopped) this.#hold(chunk.slice(rest));
  }

  end(emit: (out: O) => void): void {
    const held = this.#held;
    const size = this.#heldSize;
    this.#held = [];
    this.#heldSize = 0;
    if (size > 0 && !this.stopped) this.#parsed.push(joinBytes(held, size), emit);
    if (this.#parsedStage) this.#parsedStage.end(emit);
    else this.#reader.end(emit);
  }

  abort(reason: unknown): void {
    this.#reader.abort?.(reason);
  }

  /** Reads the whole events of `bytes` from `from`; where the first one not yet whole starts. */
  #read(bytes: Uint8Array, from: number, emit: (out: O) => void): number {
    const reader = this.#reader;
    const limit = bytes.length;
    let at = from;
    while (at < limit && !reader.stopped) {
      if (reader.takes()) {
        const end = reader.takeEvent(bytes, at, limit, emit);
        if (end > 0) {
          at = end;
          continue;
        }
      }
      const end = this.#findEnd(bytes, at, limit);
      if (end === -1) return at;
      if (end === -2) {
        this.#cutting = false;
        this.#parsed.push(bytes.subarray(at), emit);
        return limit;
      }
      const message = this.#split === -2 ? undefined : readMessage(bytes, at, this.#split, this.#second, this.#last);
      if (message) reader.push(message, emit);
      else this.#parsed.push(bytes.subarray(at, end), emit);
      at = end;
    }
    return at;
  }

  /**
   * Past the blank line that ends the event starting at `from`; -1 when it is not whole yet, -2 at
   * a CR not followed by an LF (a line end this reader does not cut). A blank line's CR that ends
   * the bytes ends the event (see `#skipLF`).
   */
  #findEnd(bytes: Uint8Array, from: number, limit: number): number {
    this.#split = -1;
    return this.#scan(bytes, from, limit, IN_LINE);
  }

  /**
   * The line structure from `from` on, starting in `state`: past the blank line, or -1 with
   * `#state` kept for the bytes still to come, or -2. From an event's start, notes its first
   * line's end, its second line's start and its last line's end (`#split`, `#second`, `#last`).
   */
  #scan(bytes: Uint8Array, from: number, limit: number, state: number): number {
    let lineEnd = -1;
    let lines = 0;
    for (let i = from; i < limit; i++) {
      const c = bytes[i];
      if (state === IN_LINE) {
        if (c === LF || c === CR) {
          lineEnd = i;
          state = c === LF ? LINE_START : CR_IN_LINE;
        }
      } else if (state === CR_IN_LINE) {
        if (c !== LF) return -2;
        state = LINE_START;
      } else if (c === LF) {
        // LINE_START or CR_AT_START: an empty line, the event's end.
        this.#last = lineEnd;
        return i + 1;
      } else if (state === CR_AT_START) {
        return -2;
      } else if (c === CR) {
        state = CR_AT_START;
      } else {
        // A line starts after the first.
        lines++;
        if (lines === 1) {
          this.#split = lineEnd;
          this.#second = i;
        } else {
          this.#split = -2;
        }
        state = IN_LINE;
      }
    }
    if (state === CR_AT_START) {
      this.#last = lineEnd;
      this.#skipLF = true;
      return limit;
    }
    this.#state = state;
    return -1;
  }

  /**
   * Where in `chunk` the held event ends (as `#findEnd` answers), scanning only the new bytes from
   * where the held ones left the line structure; the joined event is read again whole, where its
   * lines are counted anew.
   */
  #endOfHeld(chunk: Uint8Array): number {
    return this.#scan(chunk, 0, chunk.length, this.#state);
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldSize += bytes.length;
    if (this.#heldSize > this.#maxEvent) throw eventTooLarge(this.#maxEvent);
  }
}

/**
 * The message of the event in `bytes[from, to)` (its last line end and blank line excluded) when
 * it is a `data:` line, or an `event:` line (ending at `split`) and a `data:` line (starting at
 * `second`); else undefined. An empty event name is no name, as in createSseReader.
 */
function readMessage(bytes: Uint8Array, from: number, split: number, second: number, to: number): SseMessage | undefined {
  if (split === -1) {
    const at = findDataValue(bytes, from, to);
    return at < 0 ? undefined : { data: readText(bytes, at, to) };
  }
  const name = findEventValue(bytes, from, split);
  const at = name < 0 ? -1 : findDataValue(bytes, second, to);
  if (at < 0) return undefined;
  const data = readText(bytes, at, to);
  return name < split ? { event: readText(bytes, name, split), data } : { data };
}

function readText(bytes: Uint8Array, from: number, to: number): string {
  return from === to ? '' : decoder.decode(bytes.subarray(from, to));
}

/**
 * The varying string's body when the bytes from `from` are a `data:` line holding `template`'s
 * text (see JsonTemplate.matchBytes) and then the event's blank line; else undefined. The event
 * ends where `readEventEnd` finds it from `template.end`. The span may be empty. `views` is the
 * stream's own (see ReadView).
 */
export function readTemplateData(template: JsonTemplate<unknown>, views: ReadView, bytes: Uint8Array, from: number, limit: number): JsonTextSpan | undefined {
  const at = findDataValue(bytes, from, limit);
  if (at < 0) return undefined;
  const quote = template.matchBytes(bytes, views.of(bytes), at, limit);
  if (quote < 0 || readEventEnd(bytes, template.end, limit) < 0) return undefined;
  return new JsonTextSpan(bytes, template.start, quote);
}

/** Past the line end at `at` and the empty line after it (each LF or CRLF), or -1 when they are not both there. */
export function readEventEnd(bytes: Uint8Array, at: number, limit: number): number {
  let i = bytes[at] === CR ? at + 1 : at;
  if (i >= limit || bytes[i] !== LF) return -1;
  i = bytes[i + 1] === CR ? i + 2 : i + 1;
  return i < limit && bytes[i] === LF ? i + 1 : -1;
}

/** Where the value of the `event:` line starting at `from` starts, or -1 when none starts there. */
export function findEventValue(bytes: Uint8Array, from: number, limit: number): number {
  return findFieldValue(bytes, from, limit, EVENT);
}

/**
 * Where the value of the `data:` line starting at `from` starts (past the one space a parser
 * drops), or -1 when no `data:` field starts there.
 */
export function findDataValue(bytes: Uint8Array, from: number, limit: number): number {
  return findFieldValue(bytes, from, limit, DATA);
}

/** Where the value of the field `name` (with its colon) starting at `from` starts, or -1. */
function findFieldValue(bytes: Uint8Array, from: number, limit: number, name: readonly number[]): number {
  if (limit - from < name.length) return -1;
  for (let i = 0; i < name.length; i++) if (bytes[from + i] !== name[i]) return -1;
  const at = from + name.length;
  return at < limit && bytes[at] === SPACE ? at + 1 : at;
}
