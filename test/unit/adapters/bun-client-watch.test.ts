import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBunClientWatch } from '../../../adapters/bun-client-watch.ts';
import { readClientSignal } from '../../../core/http/client-signal.ts';

/** A request whose `signal` counts its reads, as Bun's is made on the first one. */
function fakeRequest(signal = new AbortController()) {
  const request = new Request('http://gateway.test/v1/messages') as Request & { signalReads: number };
  request.signalReads = 0;
  Object.defineProperty(request, 'signal', {
    get: () => {
      request.signalReads++;
      return signal.signal;
    },
  });
  return { request, controller: signal };
}

describe('createBunClientWatch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives core a light client signal and never reads Bun’s for a request answered within a tick', () => {
    const watch = createBunClientWatch(20);
    const { request, controller } = fakeRequest();
    const watched = watch(request);
    const client = readClientSignal(request);
    expect(client).not.toBe(controller.signal);
    expect(client.aborted).toBe(false);
    watched.settle();
    vi.advanceTimersByTime(100);
    expect(request.signalReads).toBe(0);
    // Bun's signal may abort once the answer is out: the settled request no longer listens.
    controller.abort();
    expect(client.aborted).toBe(false);
  });

  it('listens on Bun’s signal once a request has waited a whole tick, and passes its abort on', () => {
    const watch = createBunClientWatch(20);
    const { request, controller } = fakeRequest();
    watch(request);
    const client = readClientSignal(request);
    const heard: unknown[] = [];
    client.addEventListener('abort', () => heard.push(client.reason));
    vi.advanceTimersByTime(20);
    // Added during the first tick: not yet a whole tick old.
    expect(request.signalReads).toBe(0);
    vi.advanceTimersByTime(20);
    expect(request.signalReads).toBe(1);
    expect(client.aborted).toBe(false);
    const reason = new DOMException('The connection was closed.', 'AbortError');
    controller.abort(reason);
    expect(client.aborted).toBe(true);
    expect(heard).toEqual([reason]);
    vi.advanceTimersByTime(100);
    expect(request.signalReads).toBe(1);
  });

  it('aborts at once when the client had already gone before its signal was read', () => {
    const watch = createBunClientWatch(20);
    const { request, controller } = fakeRequest();
    watch(request);
    controller.abort(new Error('gone'));
    expect(readClientSignal(request).aborted).toBe(false);
    vi.advanceTimersByTime(40);
    expect(readClientSignal(request).aborted).toBe(true);
    expect((readClientSignal(request).reason as Error).message).toBe('gone');
  });

  it('runs its timer only while requests are in flight, and lets go of answered requests', () => {
    const watch = createBunClientWatch(20);
    expect(vi.getTimerCount()).toBe(0);
    const first = fakeRequest();
    const second = fakeRequest();
    watch(first.request).settle();
    const open = watch(second.request);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(40);
    expect(first.request.signalReads).toBe(0);
    expect(second.request.signalReads).toBe(1);
    open.settle();
    // Nothing came in during the last tick: the timer stops.
    vi.advanceTimersByTime(20);
    expect(vi.getTimerCount()).toBe(0);
    // A request after the pause starts it again.
    const third = fakeRequest();
    watch(third.request);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(40);
    expect(third.request.signalReads).toBe(1);
  });
});
