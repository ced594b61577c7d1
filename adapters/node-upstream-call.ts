import type { Dispatcher } from 'undici';
import type { ClientSignal, UpstreamResponse } from '../core/index.ts';
import { ChunkQueue, QueuedAnswer, readAbortReason, RecordHeaders, type RawHeaders } from './upstream-answer.ts';

type Controller = Dispatcher.DispatchController;

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
  // Made once per call, so it can be removed again when the call ends.
  #onAbort = () => this.#controller?.abort(readAbortReason(this.#signal));

  constructor(resolve: (answer: UpstreamResponse) => void, reject: (err: unknown) => void, signal: ClientSignal | undefined) {
    super();
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
    this.#release();
    // The abort that cancel() asked for: whoever reads has already been told the body is done.
    if (this.cancelled) return;
    if (!this.#answered) {
      this.#answered = true;
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

/** undici's header time-out as the `TimeoutError` core expects of a client that enforces one (UpstreamFetch). */
function mapCallError(err: Error): Error {
  if ((err as { code?: string }).code !== 'UND_ERR_HEADERS_TIMEOUT') return err;
  return Object.assign(new Error('Upstream headers timed out', { cause: err }), { name: 'TimeoutError' });
}
