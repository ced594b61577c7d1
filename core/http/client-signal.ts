/**
 * What core needs of the client's abort signal: its state and abort listeners. A web
 * `AbortSignal` is one, and core takes `request.signal` unless the request offers a lighter
 * signal under `CLIENT_SIGNAL`. The Node adapter does: on Node 20 an `AbortController` costs
 * ~5 µs to make and ~4 µs more for the listener undici adds and removes on every upstream call
 * (EventTarget machinery), about a tenth of core's own work on a passthrough call. Its
 * `request.signal` stays a real, lazily made AbortSignal for any handler that reads it.
 */
export interface ClientSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

/** A function, or an object whose `handleEvent` is called (as an EventTarget's listener may be): a call that listens as itself needs no closure. */
export type AbortListener = (() => void) | { handleEvent(): void };

/** Registered, so a second copy of core (a bundled app and its dependency) agrees on it. */
export const CLIENT_SIGNAL: unique symbol = Symbol.for('switchyard.clientSignal') as never;

export function readClientSignal(request: Request): ClientSignal {
  return (request as Request & { [CLIENT_SIGNAL]?: ClientSignal })[CLIENT_SIGNAL] ?? request.signal;
}

/**
 * A ClientSignal with its own `abort()`: listeners run once, in the order added, like an
 * AbortSignal's (a throwing listener is reported asynchronously and does not stop the others).
 * undici's dispatcher accepts it as its `signal` (it takes any EventTarget-like object).
 */
export class ClientAbort implements ClientSignal {
  aborted = false;
  reason: unknown = undefined;
  #listeners: AbortListener[] = [];

  /** `once` needs no bookkeeping: a signal aborts at most once and drops its listeners then. */
  addEventListener(type: 'abort', listener: AbortListener, _options?: { once?: boolean }): void {
    if (type === 'abort' && !this.aborted && !this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: AbortListener): void {
    const at = type === 'abort' ? this.#listeners.indexOf(listener) : -1;
    if (at >= 0) this.#listeners.splice(at, 1);
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) {
      try {
        if (typeof listener === 'function') listener();
        else listener.handleEvent();
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}
