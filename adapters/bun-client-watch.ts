import { ClientAbort, CLIENT_SIGNAL } from '../core/index.ts';

/**
 * How long a request may run before its client is watched through Bun's own signal. Bun makes
 * `request.signal` when it is first read, and making it with its `onabort` costs ~2.5 µs of a
 * bare Bun.serve's ~18 per request; an answer the upstream gives within this never pays it. A
 * signal first read after the client has gone comes already aborted (Bun 1.4.5; see
 * test/runtime/bun-client-watch.test.ts), so a late watch loses only time: a client that leaves
 * in a request's first moments cancels the upstream call within ~2 sweeps, any later at once.
 */
export const BUN_WATCH_AFTER_MS = 20;

/**
 * The client signal core gets (CLIENT_SIGNAL), with the request it watches until it is answered.
 * Core and the upstream client add and remove an abort listener for each call (a stream's meter
 * one more); on Bun's native AbortSignal each such pair cost ~2 µs per request (thirty-first
 * round), on this one they are a push and a splice of a small array.
 */
class WatchedClient extends ClientAbort {
  request: Request | undefined;

  constructor(request: Request) {
    super();
    this.request = request;
  }

  /** The answer is whole: nothing left to cancel, and the request may be collected at once. */
  settle(): void {
    this.request = undefined;
  }

  /** Still unanswered after a sweep: from now on Bun's signal tells. */
  listen(): void {
    const request = this.request;
    if (!request) return;
    this.request = undefined;
    const signal = request.signal;
    if (signal.aborted) this.abort(signal.reason);
    else signal.onabort = () => this.abort(signal.reason);
  }
}

/** A watched request: `settle()` once its answer is whole. */
export interface WatchedRequest {
  settle(): void;
}

/**
 * Watches the clients of one Bun server: `watch(request)` gives the request its light client
 * signal (core reads it under CLIENT_SIGNAL). A timer runs only while requests are in flight;
 * each tick listens on those that have been waiting a whole tick.
 */
export function createBunClientWatch(afterMs = BUN_WATCH_AFTER_MS): (request: Request) => WatchedRequest {
  let young: WatchedClient[] = [];
  let old: WatchedClient[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;

  const sweep = () => {
    for (const client of old) client.listen();
    old = young;
    young = [];
    if (old.length === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  return (request) => {
    const client = new WatchedClient(request);
    (request as Request & { [CLIENT_SIGNAL]?: ClientAbort })[CLIENT_SIGNAL] = client;
    young.push(client);
    if (!timer) {
      timer = setInterval(sweep, afterMs);
      // An idle server's process may exit; requests in flight keep it alive on their own.
      (timer as { unref?: () => void }).unref?.();
    }
    return client;
  };
}
