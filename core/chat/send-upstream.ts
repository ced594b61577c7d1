import type { RequestContext } from '../context.ts';
import { GatewayError, isGatewayError } from '../errors.ts';
import type { UpstreamRequest, UpstreamResponse } from '../upstreams/types.ts';

/**
 * Sends one upstream request. The time-out covers only the wait for response headers: a long
 * stream may run as long as it likes. The client's abort signal cancels the call at any point.
 * Errors come out mapped (GatewayError); see `startUpstream` for the hot paths.
 */
export function sendUpstream(ctx: RequestContext, provider: string, request: UpstreamRequest, timeoutMs: number): Promise<UpstreamResponse> {
  return startUpstream(ctx, provider, request, timeoutMs).then(undefined, (err: unknown) => {
    throw mapSendError(ctx, provider, timeoutMs, err);
  });
}

/**
 * `sendUpstream` for callers that await it in an async function of their own: the client's own
 * promise where it keeps the header time-out itself, its errors unmapped, for the caller's
 * `catch` to pass through `mapSendError`. A `then` only to map errors cost every call a promise
 * and a microtask. Not async either.
 */
export function startUpstream(ctx: RequestContext, provider: string, request: UpstreamRequest, timeoutMs: number): Promise<UpstreamResponse> {
  const { fetch } = ctx.services;
  if (!fetch.enforcesHeadersTimeout) return sendWithTimer(ctx, provider, request, timeoutMs);
  // Such a client takes the client's signal as it is, a ClientSignal maybe (see UpstreamFetch).
  const signal = ctx.signal as AbortSignal;
  try {
    return fetch(request.url, { method: 'POST', headers: request.headers, body: takeBody(request), signal, redirect: 'manual', headersTimeoutMs: timeoutMs });
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The request's body, for the fetch alone: the request keeps none. Callers hold their request
 * until the upstream answers, and a 400 KB prompt held that long outlived young-generation
 * collections (Bun, 64 such calls in flight: ~250 MiB peak RSS, ~125 with it let go). A request
 * is written for one send; a fallback writes its own.
 */
function takeBody(request: UpstreamRequest): BodyInit {
  const { body } = request;
  request.body = '';
  return body as BodyInit;
}

/** What a failed send means to the client; an error already mapped (the timer's) passes as it is. */
export function mapSendError(ctx: RequestContext, provider: string, timeoutMs: number, err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  return readSendError(ctx, provider, timeoutMs, err, (err as Error | undefined)?.name === 'TimeoutError');
}

/** For clients without their own header timer: an AbortController linked to the client, and a timer. */
async function sendWithTimer(ctx: RequestContext, provider: string, request: UpstreamRequest, timeoutMs: number): Promise<UpstreamResponse> {
  const { fetch } = ctx.services;
  const controller = new AbortController();
  const onClientAbort = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onClientAbort();
  else ctx.signal.addEventListener('abort', onClientAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    return await fetch(request.url, { method: 'POST', headers: request.headers, body: takeBody(request), signal: controller.signal, redirect: 'manual' });
  } catch (err) {
    throw readSendError(ctx, provider, timeoutMs, err, timedOut);
  } finally {
    clearTimeout(timer);
  }
}

function readSendError(ctx: RequestContext, provider: string, timeoutMs: number, err: unknown, timedOut: boolean): GatewayError {
  if (timedOut) return new GatewayError('timeout', `Upstream "${provider}" did not answer within ${timeoutMs} ms`, { cause: err });
  if (ctx.signal.aborted) return new GatewayError('invalid_request', 'Client closed the request', { status: 499, cause: err });
  return new GatewayError('upstream', `Upstream "${provider}" could not be reached`, { cause: err });
}

export function timeoutFor(ctx: RequestContext, providerTimeout: number | undefined): number {
  return providerTimeout ?? ctx.services.config.limits.upstreamTimeoutMs;
}
