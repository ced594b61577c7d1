import { createStreamMeter } from '../accounting/meter-stream.ts';
import type { CallOutcome, Reservation } from '../accounting/types.ts';
import type { CatalogModel } from '../catalog.ts';
import type { RequestContext } from '../context.ts';
import { Reply, readerOfBody, type ChunkReader } from '../http/reply.ts';
import type { SourceFamily, Usage } from '../ir.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { ChatOutcome } from './run-chat.ts';
import { readPassthroughUsage, readStreamUsage, tapPassthroughUsage } from './read-passthrough-usage.ts';

/** What admission reserves before any route is tried. */
export interface AdmissionHint {
  /** Size of the client body: a safe upper bound for its text tokens (≥ 3 bytes a token), cheap to know. */
  bodyBytes: number;
  /** The client's output cap, if it set one. */
  maxOutputTokens?: number;
}

/** Reserved when a client sets no cap; the reservation is settled to real usage afterwards. */
const DEFAULT_MAX_OUTPUT = 32_768;

export function admitCall(ctx: RequestContext, model: CatalogModel, family: SourceFamily, hint: AdmissionHint): MaybePromise<Reservation | undefined> {
  const meter = ctx.services.meter;
  if (!meter) return undefined;
  return meter.admit(ctx.key!, {
    requestId: ctx.id,
    model: model.id,
    family,
    estimatedInputTokens: Math.ceil(hint.bodyBytes / 3),
    maxOutputTokens: hint.maxOutputTokens ?? DEFAULT_MAX_OUTPUT,
  });
}

/** A relayed answer's call, settled with the usage its bytes carried (none read: undefined). */
function settleReply(ctx: RequestContext, reservation: Reservation, outcome: ChatOutcome & { kind: 'reply' }, ttfbMs: number, usage: Usage | undefined, aborted: boolean): void {
  const { provider, upstreamModel } = outcome.target;
  const settled: CallOutcome = { provider, upstreamModel, status: outcome.reply.status, latencyMs: performance.now() - ctx.started, ttfbMs, aborted };
  if (usage) settled.usage = usage;
  reservation.settle(settled);
}

/** Settles the reservation when the outcome ends: now for JSON, at the end (or abort) of a stream. */
export function meterOutcome(ctx: RequestContext, outcome: ChatOutcome, reservation: Reservation, family: SourceFamily): ChatOutcome {
  const { provider, upstreamModel } = outcome.target;
  if (outcome.kind === 'result') {
    reservation.settle({ provider, upstreamModel, status: 200, usage: outcome.result.usage, latencyMs: performance.now() - ctx.started, aborted: false });
    return outcome;
  }
  if (outcome.kind === 'stream') {
    const events = outcome.events.pipe(createStreamMeter(reservation, { started: ctx.started, provider, upstreamModel, signal: ctx.signal }));
    return { kind: 'stream', events, target: outcome.target };
  }
  const { reply } = outcome;
  const ttfbMs = performance.now() - ctx.started;
  const { body } = reply;
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) {
    // A relayed stream that came whole is read as the tap reads a stream; a JSON answer as JSON.
    const usage = body === null ? undefined : reply.streaming ? readStreamUsage(body, family) : readPassthroughUsage(body, family);
    settleReply(ctx, reservation, outcome, ttfbMs, usage, false);
    return outcome;
  }
  return tapReply(ctx, outcome, body, reservation, family, ttfbMs);
}

/**
 * A relayed stream still coming, settled as it ends; apart from meterOutcome, whose calls (most
 * relayed answers come whole) its closure gave a scope object each (see runHandlers in dispatch.ts).
 */
function tapReply(ctx: RequestContext, outcome: ChatOutcome & { kind: 'reply' }, body: ChunkReader | ReadableStream<Uint8Array>, reservation: Reservation, family: SourceFamily, ttfbMs: number): ChatOutcome {
  const { reply } = outcome;
  const tapped = tapPassthroughUsage(readerOfBody(body), family, (usage, aborted) => settleReply(ctx, reservation, outcome, ttfbMs, usage, aborted));
  return { kind: 'reply', reply: new Reply(reply.status, reply.headers, tapped), target: outcome.target };
}
