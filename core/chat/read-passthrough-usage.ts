import { encodeMark, indexOfBytes, lastIndexOfBytes } from '../http/find-bytes.ts';
import { joinBytes } from '../http/join-bytes.ts';
import type { BufferedChunks, ChunkReader } from '../http/reply.ts';
import type { SourceFamily, Usage } from '../ir.ts';
import { compileUsageCounters, readUsageCounters, type UsageCounters } from './read-usage-counters.ts';

/**
 * Usage fields as each family's own JSON names them. A passthrough body is relayed untouched, so
 * instead of parsing it the tap reads these counters out of its bytes (the last value seen wins:
 * both families report cumulative numbers, Anthropic in message_start then message_delta).
 */
const FIELDS: Record<SourceFamily, Record<string, keyof Usage>> = {
  anthropic: {
    input_tokens: 'inputTokens',
    output_tokens: 'outputTokens',
    cache_read_input_tokens: 'cacheReadTokens',
    cache_creation_input_tokens: 'cacheWriteTokens',
  },
  gemini: {
    promptTokenCount: 'inputTokens',
    candidatesTokenCount: 'outputTokens',
    thoughtsTokenCount: 'reasoningTokens',
    cachedContentTokenCount: 'cacheReadTokens',
  },
  openai: {},
};

const COUNTERS = Object.fromEntries(Object.entries(FIELDS).map(([family, fields]) => [family, compileUsageCounters(fields)])) as Record<SourceFamily, UsageCounters>;

/**
 * Where a stream's counters are. Anthropic sends input and cache counts in message_start (the
 * first event) and final counts in message_delta (just before message_stop); Gemini repeats its
 * cumulative counts at the end of every chunk, so the last one has them all. The tap keeps the
 * first HEAD bytes (Anthropic only) and the last TAIL bytes and reads just those, once, when the
 * stream ends: the bytes in between are never looked at. Both windows are several times
 * larger than the events they must hold (~500 bytes with every optional usage field).
 */
const HEAD_BYTES: Record<SourceFamily, number> = { anthropic: 2048, gemini: 0, openai: 0 };
const TAIL_BYTES = 2048;

/**
 * Within the windows, where scanning can start or stop: the head is read up to the end of the
 * event that names message_start, the tail from its last usage object on (message_delta's, or
 * Gemini's last usageMetadata). Either mark missing means the whole window is read. Quoted, so
 * the `event:` line and escaped text (`\"usage\"`) never match.
 */
const HEAD_EVENT: Partial<Record<SourceFamily, Uint8Array>> = { anthropic: encodeMark('"message_start"') };
const TAIL_MARK: Record<SourceFamily, Uint8Array> = { anthropic: encodeMark('"usage"'), gemini: encodeMark('"usageMetadata"'), openai: encodeMark('"usage"') };
const EVENT_END = encodeMark('\n\n');

/**
 * Reads the usage counters out of a whole passthrough body (a JSON answer). Both families put
 * the usage object after the content (`usage` last in an Anthropic message, `usageMetadata`
 * after the candidates), so the counters are read only from the last usage key on: a few
 * hundred bytes however long the answer, and a tool input that happens to name a counter before
 * it is never taken. Without the key the whole body is read.
 */
export function readPassthroughUsage(body: string | Uint8Array, family: SourceFamily): Usage | undefined {
  const seen: Partial<Record<keyof Usage, number>> = {};
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  readUsageCounters(bytes, Math.max(0, lastIndexOfBytes(bytes, TAIL_MARK[family])), bytes.length, COUNTERS[family], seen);
  return toUsage(family, seen);
}

const encoder = new TextEncoder();

/**
 * A whole relayed stream's usage, read as the tap reads a stream that came in one chunk: the head
 * event's counters (Anthropic's message_start) and the tail's from its last usage object on.
 */
export function readStreamUsage(body: string | Uint8Array, family: SourceFamily): Usage | undefined {
  const seen: Partial<Record<keyof Usage, number>> = {};
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const headLimit = HEAD_BYTES[family];
  if (headLimit > 0) {
    const end = endOfHeadEvent(bytes, family);
    if (end >= 0) readHeadEvent(bytes, end, family, seen);
    else if (bytes.length <= headLimit) {
      readUsageCounters(bytes, 0, bytes.length, COUNTERS[family], seen);
      return toUsage(family, seen);
    } else readHead(bytes.subarray(0, headLimit), family, seen);
  }
  readTail(bytes, Math.max(0, bytes.length - TAIL_BYTES), family, seen);
  return toUsage(family, seen);
}

/**
 * Relays `body` unchanged and reports the usage it carried when it ends (`aborted` false) or the
 * client goes away (`aborted` true, with what was seen so far). A reader around a reader: no
 * stream object and no extra promise hop per chunk on the fast path.
 */
export function tapPassthroughUsage(body: ChunkReader, family: SourceFamily, done: (usage: Usage | undefined, aborted: boolean) => void): ChunkReader {
  return new UsageTap(body, family, done);
}

/** One stream's tap: its state in fields of one object rather than in closures over a context. */
class UsageTap implements ChunkReader {
  readonly #body: ChunkReader;
  readonly #family: SourceFamily;
  readonly #done: (usage: Usage | undefined, aborted: boolean) => void;
  readonly #headLimit: number;
  #seen: Partial<Record<keyof Usage, number>> = {};
  // True once the head's counters are in `seen`: then nothing is kept for it.
  #headRead = false;
  #head: Uint8Array[] | undefined;
  #headSize = 0;
  // The most recent chunks, just enough of them to hold TAIL_BYTES.
  #recent: Uint8Array[] = [];
  #recentSize = 0;
  #total = 0;
  #finished = false;
  // Made once per stream: a `then` with these costs a promise per read, where an async read also
  // kept a suspended frame per read (about 400 bytes each on Node).
  #onResult = (result: ReadableStreamReadResult<Uint8Array>) => {
    if (result.done) this.#finish(false);
    else if (!this.#finished) this.#keep(result.value);
    return result;
  };
  #onError = (err: unknown): never => {
    this.#finish(false);
    throw err;
  };

  constructor(body: ChunkReader, family: SourceFamily, done: (usage: Usage | undefined, aborted: boolean) => void) {
    this.#body = body;
    this.#family = family;
    this.#done = done;
    this.#headLimit = HEAD_BYTES[family];
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    let pending: Promise<ReadableStreamReadResult<Uint8Array>>;
    try {
      pending = this.#body.read();
    } catch (err) {
      this.#finish(false);
      return Promise.reject(err);
    }
    return pending.then(this.#onResult, this.#onError);
  }

  cancel(reason?: unknown): Promise<void> {
    this.#finish(true);
    return this.#body.cancel(reason);
  }

  readBuffered(): BufferedChunks | undefined {
    const taken = this.#body.readBuffered?.();
    if (!taken || this.#finished) return taken;
    for (const chunk of taken.chunks) this.#keep(chunk);
    if (taken.done) this.#finish(false);
    return taken;
  }

  #keep(chunk: Uint8Array): void {
    this.#total += chunk.length;
    if (!this.#headRead && this.#headSize < this.#headLimit) {
      // Usually the first chunk holds message_start's whole event: read it there, and copy nothing
      // (a 2 KiB copy costs more than the rest of the tap on Node: a backing store per stream).
      const end = this.#headSize === 0 ? endOfHeadEvent(chunk, this.#family) : -1;
      if (end >= 0) {
        readHeadEvent(chunk, end, this.#family, this.#seen);
        this.#headRead = true;
      } else {
        // A copy: a view would keep the whole chunk (up to a socket read) alive for the stream's life.
        const part = new Uint8Array(chunk.subarray(0, this.#headLimit - this.#headSize));
        (this.#head ??= []).push(part);
        this.#headSize += part.length;
      }
    }
    const recent = this.#recent;
    recent.push(chunk);
    this.#recentSize += chunk.length;
    while (this.#recentSize - recent[0]!.length >= TAIL_BYTES) this.#recentSize -= recent.shift()!.length;
  }

  #finish(aborted: boolean): void {
    if (this.#finished) return;
    this.#finished = true;
    const family = this.#family;
    const counters = COUNTERS[family];
    const seen = this.#seen;
    const head = this.#head ?? [];
    if (!this.#headRead && this.#total === this.#headSize) {
      const whole = joinBytes(head, this.#headSize);
      readUsageCounters(whole, 0, whole.length, counters, seen);
    } else {
      if (!this.#headRead && this.#headSize) readHead(joinBytes(head, this.#headSize), family, seen);
      // Only the windows' marked parts are read: a few hundred bytes instead of 4 KiB a stream.
      // (After a head read in place, a short stream's tail may hold message_start again: the
      // same counters, read in the same order, so the later events still win.)
      const [tail, from] = lastBytes(this.#recent, this.#recentSize, TAIL_BYTES);
      readTail(tail, from, family, seen);
    }
    this.#done(toUsage(family, seen), aborted);
  }
}

/**
 * The last `limit` bytes of the chunks (whose sizes add up to `size`), as bytes and the index
 * they start at in them: the last chunk itself when it holds them all, else a copy of no more.
 */
function lastBytes(chunks: readonly Uint8Array[], size: number, limit: number): [Uint8Array, number] {
  const last = chunks[chunks.length - 1];
  if (!last) return [new Uint8Array(0), 0];
  if (last.length >= limit) return [last, last.length - limit];
  const out = new Uint8Array(Math.min(size, limit));
  let at = out.length;
  for (let i = chunks.length - 1; i >= 0 && at > 0; i--) {
    const chunk = chunks[i]!;
    const part = chunk.length <= at ? chunk : chunk.subarray(chunk.length - at);
    at -= part.length;
    out.set(part, at);
  }
  return [out, 0];
}

/** The tail window (`bytes` from `from` on), read from its last usage object on; all of it without one. */
function readTail(bytes: Uint8Array, from: number, family: SourceFamily, seen: Partial<Record<keyof Usage, number>>): void {
  const mark = lastIndexOfBytes(bytes, TAIL_MARK[family], from);
  readUsageCounters(bytes, mark < 0 ? from : mark, bytes.length, COUNTERS[family], seen);
}

/**
 * The head window up to the end of its message_start event. When that end is not in the window
 * (a huge first event), the whole window is read, except a number running up to the window's
 * cut, which may be truncated.
 */
function readHead(bytes: Uint8Array, family: SourceFamily, seen: Partial<Record<keyof Usage, number>>): void {
  const end = endOfHeadEvent(bytes, family);
  if (end >= 0) readHeadEvent(bytes, end, family, seen);
  else readUsageCounters(bytes, 0, bytes.length, COUNTERS[family], seen, true);
}

/**
 * message_start's counters, from its event (`bytes[0, end)`): its usage object closes the
 * message, so only the text from the event's last usage key on is read (~120 bytes of ~450).
 */
function readHeadEvent(bytes: Uint8Array, end: number, family: SourceFamily, seen: Partial<Record<keyof Usage, number>>): void {
  readUsageCounters(bytes, Math.max(0, lastIndexOfBytes(bytes, TAIL_MARK[family], 0, end)), end, COUNTERS[family], seen);
}

/**
 * Where the event naming message_start ends in `bytes` (its blank line), or -1. The name is
 * looked for only where the head window can hold it, so a first chunk without it (a long one
 * from a stream that breaks the protocol) is not searched to its end.
 */
function endOfHeadEvent(bytes: Uint8Array, family: SourceFamily): number {
  const mark = HEAD_EVENT[family];
  const at = mark ? indexOfBytes(bytes, mark, 0, HEAD_BYTES[family]) : -1;
  return at < 0 ? -1 : indexOfBytes(bytes, EVENT_END, at);
}

function toUsage(family: SourceFamily, seen: Partial<Record<keyof Usage, number>>): Usage | undefined {
  if (seen.inputTokens === undefined && seen.outputTokens === undefined) return undefined;
  const usage: Usage = { inputTokens: seen.inputTokens ?? 0, outputTokens: seen.outputTokens ?? 0 };
  if (seen.cacheReadTokens !== undefined) usage.cacheReadTokens = seen.cacheReadTokens;
  if (seen.cacheWriteTokens !== undefined) usage.cacheWriteTokens = seen.cacheWriteTokens;
  if (family === 'gemini') {
    // Gemini's prompt count includes cached tokens and its candidates exclude thoughts; the IR's
    // input excludes cache reads and its output includes reasoning.
    usage.inputTokens = Math.max(0, usage.inputTokens - (usage.cacheReadTokens ?? 0));
    usage.outputTokens += seen.reasoningTokens ?? 0;
    if (seen.reasoningTokens !== undefined) usage.reasoningTokens = seen.reasoningTokens;
  }
  return usage;
}
