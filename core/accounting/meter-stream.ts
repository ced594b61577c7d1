import { isGatewayError } from '../errors.ts';
import type { ClientSignal } from '../http/client-signal.ts';
import { type Stage, stageStream } from '../http/stage.ts';
import { completeUsage, type StreamEvent, type Usage } from '../ir.ts';
import type { CallOutcome, Reservation } from './types.ts';

export interface StreamMeterInfo {
  /** performance.now() when the request arrived. */
  started: number;
  provider?: string;
  upstreamModel?: string;
  /** The client's signal: a disconnect settles the call as aborted with the usage seen so far. */
  signal: ClientSignal;
}

/**
 * Passes IR stream events through untouched while noting usage (cumulative `usage` events and
 * the final `finish`) and the time to the first event; settles the reservation exactly once:
 * at the end of the stream, on an upstream error, or when the client goes away.
 */
export function meterStream(reservation: Reservation, info: StreamMeterInfo): TransformStream<StreamEvent, StreamEvent> {
  return stageStream(createStreamMeter(reservation, info));
}

/** `meterStream` as a synchronous stage; `abort` is the client's cancel or an upstream error. */
export function createStreamMeter(reservation: Reservation, info: StreamMeterInfo): Stage<StreamEvent, StreamEvent> {
  let usage: Partial<Usage> | undefined;
  let ttfbMs: number | undefined;
  let status = 200;
  let done = false;

  const finish = (aborted: boolean) => {
    if (done) return;
    done = true;
    info.signal.removeEventListener('abort', onAbort);
    const outcome: CallOutcome = { status, latencyMs: performance.now() - info.started, aborted };
    if (info.provider !== undefined) outcome.provider = info.provider;
    if (info.upstreamModel !== undefined) outcome.upstreamModel = info.upstreamModel;
    if (usage) outcome.usage = completeUsage(usage);
    if (ttfbMs !== undefined) outcome.ttfbMs = ttfbMs;
    reservation.settle(outcome);
  };
  const onAbort = () => finish(true);
  if (info.signal.aborted) queueMicrotask(onAbort);
  else info.signal.addEventListener('abort', onAbort, { once: true });

  return {
    push(event, emit) {
      ttfbMs ??= performance.now() - info.started;
      if ((event.type === 'start' && event.usage) || event.type === 'usage' || event.type === 'finish') usage = Object.assign(usage ?? {}, event.usage);
      else if (event.type === 'error') status = event.error.status;
      emit(event);
    },
    end() {
      finish(false);
    },
    abort(reason) {
      if (!info.signal.aborted && status < 400) status = isGatewayError(reason) ? reason.status : 502;
      finish(info.signal.aborted);
    },
  };
}
