import { joinBytes } from './join-bytes.ts';
import type { JsonTemplate } from './json-template.ts';
import { JsonTextSpan } from './json-text-span.ts';
import { createSseReader, type SseMessage } from './sse-read.ts';
import { pipeStages, type Stage } from './stage.ts';

const LF = 0x0a;
const CR = 0x0d;
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a]; // "data:"
const EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74, 0x3a]; // "event:"
const SPACE = 0x20;

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
 * goes through the parser (`createSseReader`), which then always starts at an event. Only LF line
 * ends are cut here: from the first CR on, the rest of the stream goes through the parser as it
 * comes.
 */
export function createSseByteReader<O>(reader: SseMessageReader<O>): Stage<Uint8Array, O> {
  return new SseByteReader(reader);
}

class SseByteReader<O> implements Stage<Uint8Array, O> {
  readonly #reader: SseMessageReader<O>;
  /** The SSE parser before the reader, made for the first event that needs it (most streams: none). */
  #parsedStage: Stage<Uint8Array, O> | undefined;
  /** The start of an event not yet whole, from the reads before (copies, not views of them). */
  #held: Uint8Array[] = [];
  #heldSize = 0;
  #cutting = true;
  /** The end of the first line of the event `#findEnd` last found, if it has two; -1: one line, -2: more. */
  #split = -1;

  constructor(reader: SseMessageReader<O>) {
    this.#reader = reader;
  }

  get #parsed(): Stage<Uint8Array, O> {
    return (this.#parsedStage ??= pipeStages(createSseReader(), this.#reader));
  }

  get stopped(): boolean {
    return this.#reader.stopped === true;
  }

  push(chunk: Uint8Array, emit: (out: O) => void): void {
    if (!this.#cutting) {
      this.#parsed.push(chunk, emit);
      return;
    }
    let at = 0;
    if (this.#heldSize > 0) {
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
      const message = this.#split === -2 ? undefined : readMessage(bytes, at, this.#split, end - 2);
      if (message) reader.push(message, emit);
      else this.#parsed.push(bytes.subarray(at, end), emit);
      at = end;
    }
    return at;
  }

  /**
   * Past the blank line that ends the event starting at `from`; -1 when it is not whole yet, -2 at
   * a CR (a stream whose line ends this reader does not cut).
   */
  #findEnd(bytes: Uint8Array, from: number, limit: number): number {
    let split = -1;
    for (let i = from; i < limit; i++) {
      const c = bytes[i];
      if (c === LF) {
        if (i + 1 >= limit) return -1;
        if (bytes[i + 1] === LF) {
          this.#split = split;
          return i + 2;
        }
        split = split === -1 ? i : -2;
      } else if (c === CR) {
        return -2;
      }
    }
    return -1;
  }

  /**
   * Where in `chunk` the held event ends (as `#findEnd` answers), scanning only the new bytes; the
   * joined event is read again whole, where its lines are counted anew.
   */
  #endOfHeld(chunk: Uint8Array): number {
    const last = this.#held[this.#held.length - 1]!;
    if (last[last.length - 1] === LF && chunk[0] === LF) return 1;
    return this.#findEnd(chunk, 0, chunk.length);
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldSize += bytes.length;
  }
}

/**
 * The message of the event in `bytes[from, to)` (its blank line excluded) when it is a `data:`
 * line, or an `event:` line (ending at `split`) and a `data:` line; else undefined. An empty event
 * name is no name, as in createSseReader.
 */
function readMessage(bytes: Uint8Array, from: number, split: number, to: number): SseMessage | undefined {
  if (split === -1) {
    const at = findDataValue(bytes, from, to);
    return at < 0 ? undefined : { data: readText(bytes, at, to) };
  }
  const name = findEventValue(bytes, from, split);
  const at = name < 0 ? -1 : findDataValue(bytes, split + 1, to);
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
 * ends `template.tailLength + 2` bytes past the span's end. The span may be empty.
 */
export function readTemplateData(template: JsonTemplate<unknown>, bytes: Uint8Array, from: number, limit: number): JsonTextSpan | undefined {
  const at = findDataValue(bytes, from, limit);
  if (at < 0) return undefined;
  const quote = template.matchBytes(bytes, at, limit);
  if (quote < 0) return undefined;
  const end = quote + template.tailLength;
  if (end + 1 >= limit || bytes[end] !== LF || bytes[end + 1] !== LF) return undefined;
  return new JsonTextSpan(bytes, at + template.headLength, quote);
}

/** Where the value of the `event:` line starting at `from` starts, or -1 when none starts there. */
export function findEventValue(bytes: Uint8Array, from: number, limit: number): number {
  return findFieldValue(bytes, from, limit, EVENT);
}

/**
 * Where the value of the `data:` line starting at `from` starts (past the one space a parser
 * drops), or -1 when no `data:` field starts there.
 */
function findDataValue(bytes: Uint8Array, from: number, limit: number): number {
  return findFieldValue(bytes, from, limit, DATA);
}

/** Where the value of the field `name` (with its colon) starting at `from` starts, or -1. */
function findFieldValue(bytes: Uint8Array, from: number, limit: number, name: readonly number[]): number {
  if (limit - from < name.length) return -1;
  for (let i = 0; i < name.length; i++) if (bytes[from + i] !== name[i]) return -1;
  const at = from + name.length;
  return at < limit && bytes[at] === SPACE ? at + 1 : at;
}
