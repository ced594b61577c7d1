import type { Dispatcher } from 'undici';
import { streamOfReader, type BufferedChunks, type ChunkReader, type ClientSignal, type HeadersLike, type UpstreamResponse } from '../core/index.ts';

type Controller = Dispatcher.DispatchController;
type RawHeaders = Record<string, string | string[] | undefined>;

const DONE = { done: true, value: undefined } as const;

/**
 * Past this many bytes read from the upstream and not yet taken by core, the upstream is paused
 * (undici's own body stream holds as much before it pauses).
 */
const HIGH_WATER = 64 * 1024;

/**
 * One upstream call as an undici dispatch handler, and its answer's body as a chunk reader.
 * `Dispatcher.request` wraps every answer in an `AsyncResource` and a Node `Readable`, whose
 * push, 'readable' and end-of-stream bookkeeping cost a minimal node:http proxy more than a tenth
 * of its CPU per streamed answer (bench/README.md, fifteenth round); here the chunks undici parses
 * go into a queue that core's reads take from. The promise settles with the answer once its
 * headers are in, or with the error that came first.
 */
export class UpstreamCall implements Dispatcher.DispatchHandler, ChunkReader {
  #resolve: (answer: UpstreamResponse) => void;
  #reject: (err: unknown) => void;
  #signal: ClientSignal | undefined;
  #controller: Controller | undefined;
  #answered = false;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #ended = false;
  #error: unknown = undefined;
  #failed = false;
  #cancelled = false;
  #wake: ((result: ReadableStreamReadResult<Uint8Array>) => void) | undefined;
  #fail: ((err: unknown) => void) | undefined;
  // Made once per call, so it can be removed again when the call ends.
  #onAbort = () => this.#controller?.abort(readAbortReason(this.#signal));

  constructor(resolve: (answer: UpstreamResponse) => void, reject: (err: unknown) => void, signal: ClientSignal | undefined) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    if (signal && !signal.aborted) signal.addEventListener('abort', this.#onAbort);
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    // The client left while the call waited for a connection.
    if (this.#signal?.aborted) controller.abort(readAbortReason(this.#signal));
  }

  onResponseStart(_controller: Controller, statusCode: number, headers: RawHeaders): void {
    // 1xx: informational; the real answer's headers follow.
    if (statusCode < 200) return;
    this.#answered = true;
    const empty = statusCode === 204 || statusCode === 304;
    this.#resolve(new DispatchedAnswer(statusCode, headers, empty ? null : this));
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#cancelled) return;
    const wake = this.#wake;
    if (wake) {
      this.#wake = this.#fail = undefined;
      wake({ done: false, value: chunk });
      return;
    }
    this.#chunks.push(chunk);
    this.#buffered += chunk.byteLength;
    if (this.#buffered > HIGH_WATER) controller.pause();
  }

  onResponseEnd(): void {
    this.#ended = true;
    this.#release();
    const wake = this.#wake;
    if (wake) {
      this.#wake = this.#fail = undefined;
      wake(DONE);
    }
  }

  /** `controller` is missing when undici refuses the call before it starts (bad options, a closed pool). */
  onResponseError(_controller: Controller | undefined, err: Error): void {
    this.#release();
    // The abort that cancel() asked for: whoever reads has already been told the body is done.
    if (this.#cancelled) return;
    if (!this.#answered) {
      this.#answered = true;
      this.#reject(mapCallError(err));
      return;
    }
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
      if (this.#buffered <= HIGH_WATER) this.#controller?.resume();
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
      if (this.#buffered > HIGH_WATER) this.#controller?.resume();
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
    this.#controller?.abort(reason instanceof Error ? reason : new Error('Upstream answer no longer read'));
    return Promise.resolve();
  }

  #release(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#signal = undefined;
  }
}

/** undici's header time-out as the `TimeoutError` core expects of a client that enforces one (UpstreamFetch). */
function mapCallError(err: Error): Error {
  if ((err as { code?: string }).code !== 'UND_ERR_HEADERS_TIMEOUT') return err;
  return Object.assign(new Error('Upstream headers timed out', { cause: err }), { name: 'TimeoutError' });
}

function readAbortReason(signal: ClientSignal | undefined): Error {
  const reason = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

/** An answer whose headers are in; its body is read from the call's queue. */
class DispatchedAnswer implements UpstreamResponse {
  readonly ok: boolean;
  readonly headers: HeadersLike;
  #call: UpstreamCall | null;
  #stream: ReadableStream<Uint8Array> | undefined;
  #taken = false;

  constructor(
    readonly status: number,
    raw: RawHeaders,
    call: UpstreamCall | null,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = new RecordHeaders(raw);
    this.#call = call;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#call) return null;
    this.#stream ??= streamOfReader(this.#take());
    return this.#stream;
  }

  reader(): ChunkReader {
    return this.#take();
  }

  json(): Promise<unknown> {
    return this.text().then(parseJson);
  }

  text(): Promise<string> {
    return this.bytes().then(decodeUtf8);
  }

  /** An answer that came in one chunk is given as it is, not copied. */
  bytes(): Promise<Buffer> {
    if (!this.#call) return Promise.resolve(Buffer.alloc(0));
    const call = this.#take();
    const whole = call.takeWhole();
    return whole ? Promise.resolve(whole) : readAll(call);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  #take(): UpstreamCall {
    if (this.#taken) throw new TypeError('Body has already been read');
    this.#taken = true;
    return this.#call ?? noBody();
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

/** undici's header object (lower-case names; repeated headers as arrays) as the `get`/`forEach` core reads. */
class RecordHeaders implements HeadersLike {
  constructor(private readonly raw: RawHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
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
