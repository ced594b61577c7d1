import type { buildConnector, Dispatcher } from 'undici';
import type { ClientSignal, UpstreamResponse } from '../core/index.ts';
import { ChunkQueue, QueuedAnswer, readAbortReason, RecordHeaders, type RawHeaders } from './upstream-answer.ts';

type Controller = Dispatcher.DispatchController;

/** What a call needs to go once more: the pool and the same options (a body held whole). */
export interface Resend {
  dispatcher: Dispatcher;
  options: Dispatcher.DispatchOptions;
}

/**
 * How long after a request went out a close before its answer's head is taken for a stale
 * keep-alive connection (the upstream closed it as the request was sent), as in the Bun client
 * (adapters/bun-upstream.ts). Such a close comes within a round trip.
 */
export const RESEND_WINDOW_MS = 1000;

/**
 * One upstream call as an undici dispatch handler, and its answer's body as a chunk reader.
 * `Dispatcher.request` wraps every answer in an `AsyncResource` and a Node `Readable`, whose
 * push, 'readable' and end-of-stream bookkeeping cost a minimal node:http proxy more than a tenth
 * of its CPU per streamed answer (bench/README.md, fifteenth round); here the chunks undici parses
 * go into the queue core's reads take from. The promise settles with the answer once its headers
 * are in, or with the error that came first.
 */
export class UpstreamCall extends ChunkQueue implements Dispatcher.DispatchHandler {
  #resolve: (answer: UpstreamResponse) => void;
  #reject: (err: unknown) => void;
  #signal: ClientSignal | undefined;
  #controller: Controller | undefined;
  #answered = false;
  #resend: Resend | undefined;
  #sentAt = 0;
  // Made once per call, so it can be removed again when the call ends.
  #onAbort = () => this.#controller?.abort(readAbortReason(this.#signal));

  /** `resend`: given to a first attempt whose body can be sent again. */
  constructor(resolve: (answer: UpstreamResponse) => void, reject: (err: unknown) => void, signal: ClientSignal | undefined, resend?: Resend) {
    super();
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    this.#resend = resend;
    if (signal && !signal.aborted) signal.addEventListener('abort', this.#onAbort);
  }

  onRequestStart(controller: Controller): void {
    this.#controller = controller;
    // undici calls this as the request is written to its connection.
    if (this.#resend) this.#sentAt = performance.now();
    // The client left while the call waited for a connection.
    if (this.#signal?.aborted) controller.abort(readAbortReason(this.#signal));
  }

  onResponseStart(_controller: Controller, statusCode: number, headers: RawHeaders): void {
    // 1xx: informational; the real answer's headers follow.
    if (statusCode < 200) return;
    this.#answered = true;
    const empty = statusCode === 204 || statusCode === 304;
    this.#resolve(new QueuedAnswer(statusCode, new RecordHeaders(headers), empty ? null : this));
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    this.pushChunk(chunk);
  }

  onResponseEnd(): void {
    this.#release();
    this.endChunks();
  }

  /** `controller` is missing when undici refuses the call before it starts (bad options, a closed pool). */
  onResponseError(_controller: Controller | undefined, err: Error): void {
    const signal = this.#signal;
    this.#release();
    // The abort that cancel() asked for: whoever reads has already been told the body is done.
    if (this.cancelled) return;
    if (!this.#answered) {
      this.#answered = true;
      const resend = this.#resend;
      if (resend && !signal?.aborted && isStaleConnection(err) && performance.now() - this.#sentAt <= RESEND_WINDOW_MS) {
        // Chromium's rule for a reused connection closed before any answer; once, on another
        // connection (undici drops the closed one). Not from inside undici's close handling.
        queueMicrotask(() => {
          try {
            resend.dispatcher.dispatch(resend.options, new UpstreamCall(this.#resolve, this.#reject, signal));
          } catch (again) {
            // A pool closed meanwhile: the call fails as the first attempt would have.
            this.#reject(again);
          }
        });
        return;
      }
      this.#reject(mapCallError(err));
      return;
    }
    this.failChunks(err);
  }

  protected pauseSource(): void {
    this.#controller?.pause();
  }

  protected resumeSource(): void {
    this.#controller?.resume();
  }

  protected abortSource(reason: Error): void {
    this.#controller?.abort(reason);
  }

  #release(): void {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#signal = undefined;
  }
}

/** Where `stampSocketErrors` leaves the bytes a socket had read when it failed. */
const BYTES_READ = Symbol('bytesRead');

/**
 * undici's connector, with a listener on each socket it opens that stamps the socket's errors with
 * the bytes it had read. undici hands a reset (ECONNRESET) or a write to a closed connection (EPIPE)
 * to the call as the socket's own error, which says nothing of the connection; the stamp does. The
 * listener is added before undici's (the connector answers first), so the stamp is there when the
 * call hears of the error. One listener per connection, nothing per call.
 */
export function stampSocketErrors(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...args) => {
      const socket = args[1];
      if (socket) socket.on('error', (error: Error) => void ((error as { [BYTES_READ]?: number })[BYTES_READ] = socket.bytesRead));
      callback(...args);
    });
}

/**
 * A connection that had read bytes before it failed without an answer's head: a reused one, whose
 * earlier answers those bytes were (they could also be the start of this answer's head, cut off
 * before it was whole). undici says so as "other side closed" with the socket's counts; a reset or
 * a broken pipe carries them only where `stampSocketErrors` put them. The upstream closed it as the
 * request went out: Cloudflare-fronted APIs reset such connections.
 */
function isStaleConnection(err: Error): boolean {
  const { code, socket } = err as { code?: string; socket?: { bytesRead?: number } };
  if (code === 'UND_ERR_SOCKET') return (socket?.bytesRead ?? 0) > 0;
  return (code === 'ECONNRESET' || code === 'EPIPE') && ((err as { [BYTES_READ]?: number })[BYTES_READ] ?? 0) > 0;
}

/** undici's header time-out as the `TimeoutError` core expects of a client that enforces one (UpstreamFetch). */
function mapCallError(err: Error): Error {
  if ((err as { code?: string }).code !== 'UND_ERR_HEADERS_TIMEOUT') return err;
  return Object.assign(new Error('Upstream headers timed out', { cause: err }), { name: 'TimeoutError' });
}
