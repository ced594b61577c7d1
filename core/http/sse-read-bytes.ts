import { joinBytes } from './join-bytes.ts';
import { createSseReader, type SseMessage } from './sse-read.ts';
import { pipeStages, type Stage } from './stage.ts';

const LF = 0x0a;
const CR = 0x0d;
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a]; // "data:"
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
 * from its bytes; an event that is one `data:` line is decoded and pushed as its message, as the
 * SSE parser would give it, without the parser; any other goes through the parser
 * (`createSseReader`), which then always starts at an event. Only LF line ends are cut here: from
 * the first CR on, the rest of the stream goes through the parser as it comes.
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
  /** The event `#findEnd` last found is a single line. */
  #oneLine = false;

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
      const data = this.#oneLine ? readDataLine(bytes, at, end - 2) : undefined;
      if (data !== undefined) reader.push({ data }, emit);
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
    let oneLine = true;
    for (let i = from; i < limit; i++) {
      const c = bytes[i];
      if (c === LF) {
        if (i + 1 >= limit) return -1;
        if (bytes[i + 1] === LF) {
          this.#oneLine = oneLine;
          return i + 2;
        }
        oneLine = false;
      } else if (c === CR) {
        return -2;
      }
    }
    return -1;
  }

  /** Where in `chunk` the held event ends (as `#findEnd` answers), scanning only the new bytes. */
  #endOfHeld(chunk: Uint8Array): number {
    const last = this.#held[this.#held.length - 1]!;
    if (last[last.length - 1] === LF && chunk[0] === LF) return 1;
    const end = this.#findEnd(chunk, 0, chunk.length);
    // A held event is read again whole (joined), where its lines are counted anew.
    return end;
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldSize += bytes.length;
  }
}

/** The value of `data:` when `bytes[from, to)` is exactly one data line; else undefined. */
function readDataLine(bytes: Uint8Array, from: number, to: number): string | undefined {
  const at = findDataValue(bytes, from, to);
  if (at < 0) return undefined;
  return at === to ? '' : decoder.decode(bytes.subarray(at, to));
}

/**
 * Where the value of the `data:` line starting at `from` starts (past the one space a parser
 * drops), or -1 when no `data:` field starts there.
 */
export function findDataValue(bytes: Uint8Array, from: number, limit: number): number {
  if (limit - from < DATA.length) return -1;
  for (let i = 0; i < DATA.length; i++) if (bytes[from + i] !== DATA[i]) return -1;
  const at = from + DATA.length;
  return at < limit && bytes[at] === SPACE ? at + 1 : at;
}
