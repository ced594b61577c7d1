import { streamOfReader, type BufferedChunks, type ChunkReader, type HeadersLike, type UpstreamResponse } from '../core/index.ts';
import { lowerAscii } from './ascii-case.ts';

/** Lower-case header names → values; a repeated header's values as an array (undici's shape). */
export type RawHeaders = Record<string, string | string[] | undefined>;

const DONE = { done: true, value: undefined } as const;

/**
 * Past this many bytes read from the upstream and not yet taken by core, the upstream is paused
 * (undici's own body stream holds as much before it pauses).
 */
const HIGH_WATER = 64 * 1024;

/**
 * An upstream answer's body as a chunk reader over a queue: the adapter's client pushes what it
 * parses off the socket, core's reads take it, and no web stream or Node stream sits between
 * (bench/README.md, fifteenth round). Subclasses connect it to their client: pausing and resuming
 * the socket when core falls behind, and dropping the call when core stops reading.
 */
export abstract class ChunkQueue implements ChunkReader {
  #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #error: unknown = undefined;
  #failed = false;
  #cancelled = false;
  #wake: ((result: ReadableStreamReadResult<Uint8Array>) => void) | undefined;
  #fail: ((err: unknown) => void) | undefined;

  protected abstract pauseSource(): void;
  protected abstract resumeSource(): void;
  /** Core stopped reading: drop the call (the queue has already been told the body is done). */
  protected abstract abortSource(reason: Error): void;

  protected get cancelled(): boolean {
    return this.#cancelled;
  }

  protected pushChunk(chunk: Buffer): void {
    if (this.#cancelled) return;
    const wake = this.#wake;
    if (wake) {
      this.#wake = this.#fail = undefined;
      wake({ done: false, value: chunk });
      return;
    }
    this.#chunks.push(chunk);
    this.#buffered += chunk.byteLength;
    if (this.#buffered > HIGH_WATER) this.pauseSource();
  }

  protected endChunks(): void {
    this.#ended = true;
    const wake = this.#wake;
    if (wake) {
      this.#wake = this.#fail = undefined;
      wake(DONE);
    }
  }

  /** The body failed after its headers: the next read rejects with `err` (unless core cancelled). */
  protected failChunks(err: unknown): void {
    if (this.#cancelled) return;
    this.#failed = true;
    this.#error = err;
    const fail = this.#fail;
    if (fail) {
      this.#wake = this.#fail = undefined;
      fail(err);
    }
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    const chunk = this.#chunks.shift();
    if (chunk !== undefined) {
      this.#buffered -= chunk.byteLength;
      if (this.#buffered <= HIGH_WATER) this.resumeSource();
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.#ended || this.#cancelled) return Promise.resolve(DONE);
    if (this.#failed) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      this.#wake = resolve;
      this.#fail = reject;
    });
  }

  /**
   * What has arrived and not been read, taken at once: a short streamed answer usually comes whole
   * with its headers, and then goes out with no read at all.
   */
  readBuffered(): BufferedChunks<Uint8Array> {
    const chunks = this.#chunks;
    if (chunks.length) {
      if (this.#buffered > HIGH_WATER) this.resumeSource();
      this.#chunks = [];
      this.#buffered = 0;
    }
    return { chunks, done: this.#ended || this.#cancelled };
  }

  /** The whole body when all of it is already here (a JSON answer comes with its headers): no reads, no promises. */
  takeWhole(): Buffer | undefined {
    if (!this.#ended || this.#cancelled) return undefined;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#buffered = 0;
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  /** The reader's consumer is gone (the client left, or core stopped reading): drop the upstream call. */
  cancel(reason?: unknown): Promise<void> {
    if (this.#ended || this.#failed || this.#cancelled) return Promise.resolve();
    this.#cancelled = true;
    this.#chunks = [];
    this.#buffered = 0;
    const wake = this.#wake;
    this.#wake = this.#fail = undefined;
    wake?.(DONE);
    this.abortSource(reason instanceof Error ? reason : new Error('Upstream answer no longer read'));
    return Promise.resolve();
  }
}

/** An answer whose headers are in; its body is read from the call's queue. */
export class QueuedAnswer implements UpstreamResponse {
  readonly ok: boolean;
  readonly headers: HeadersLike;
  #queue: ChunkQueue | null;
  #stream: ReadableStream<Uint8Array> | undefined;
  #taken = false;

  constructor(
    readonly status: number,
    headers: HeadersLike,
    queue: ChunkQueue | null,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = headers;
    this.#queue = queue;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#queue) return null;
    this.#stream ??= streamOfReader(this.#take());
    return this.#stream;
  }

  reader(): ChunkReader {
    return this.#take();
  }

  takeWhole(): Buffer | undefined {
    if (!this.#queue || this.#taken) return undefined;
    const whole = this.#queue.takeWhole();
    if (whole) this.#taken = true;
    return whole;
  }

  json(): Promise<unknown> {
    return this.text().then(parseJson);
  }

  text(): Promise<string> {
    return this.bytes().then(decodeUtf8);
  }

  /** An answer that came in one chunk is given as it is, not copied. */
  bytes(): Promise<Buffer> {
    if (!this.#queue) return Promise.resolve(Buffer.alloc(0));
    const queue = this.#take();
    const whole = queue.takeWhole();
    return whole ? Promise.resolve(whole) : readAll(queue);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  #take(): ChunkQueue {
    if (this.#taken) throw new TypeError('Body has already been read');
    this.#taken = true;
    return this.#queue ?? noBody();
  }
}

const parseJson = (text: string): unknown => JSON.parse(text);
const decodeUtf8 = (bytes: Buffer): string => bytes.toString('utf8');

/** A body still arriving, joined once it has all come. */
async function readAll(reader: ChunkReader): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value as Buffer);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

function noBody(): never {
  throw new TypeError('Response has no body');
}

/** Raw headers (lower-case names; repeated headers as arrays) as the `get`/`forEach` core reads. */
export class RecordHeaders implements HeadersLike {
  constructor(private readonly raw: RawHeaders) {}

  get(name: string): string | null {
    const value = this.raw[lowerAscii(name)];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name in this.raw) {
      const value = this.raw[name];
      if (value !== undefined) callback(Array.isArray(value) ? value.join(', ') : value, name);
    }
  }
}

/** Why an aborted call failed: the signal's own reason, or an AbortError. */
export function readAbortReason(signal: { reason?: unknown } | undefined): Error {
  const reason = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}
