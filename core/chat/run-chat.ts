import type { CatalogModel, RouteTarget } from '../catalog.ts';
import type { RequestContext } from '../context.ts';
import { GatewayError, isGatewayError, toGatewayError } from '../errors.ts';
import type { ChatRequest, ChatResult, SourceFamily, StreamEvent } from '../ir.ts';
import type { Reply } from '../http/reply.ts';
import { openStaged, type StagedStream } from '../http/staged-stream.ts';
import { checkModelAllowed } from '../keys.ts';
import { isPromise } from '../maybe-promise.ts';
import type { PassthroughCall, Upstream, UpstreamRequest } from '../upstreams/types.ts';
import { admitCall, meterOutcome, type AdmissionHint } from './meter-call.ts';
import { readUpstreamError } from './read-upstream-error.ts';
import { isTransientUpstreamError } from './retryable.ts';
import { runPassthrough } from './run-passthrough.ts';
import { selectPassthrough } from './select-passthrough.ts';
import { sendUpstream, timeoutFor } from './send-upstream.ts';

export type ChatOutcome =
  | { kind: 'result'; result: ChatResult; target: RouteTarget }
  | { kind: 'stream'; events: StagedStream<StreamEvent>; target: RouteTarget }
  /** The same-family fast path answered: relay this reply as it is. */
  | { kind: 'reply'; reply: Reply; target: RouteTarget };

export interface ChatCall {
  ctx: RequestContext;
  model: CatalogModel;
  /**
   * Reads the client body into IR; called at most once, and only if some route translates
   * (a passthrough call never pays for it). Only `model` differs between routes.
   */
  request: () => ChatRequest;
  /** Translation warnings land here (reported in `x-switchyard-warnings`). */
  warnings: string[];
  /**
   * Offered by the Claude-style and Gemini-style front doors: a route whose upstream is of this
   * kind and can pass through gets the client's body (model rewritten) instead of a translation.
   */
  passthrough?: Omit<PassthroughCall, 'target'>;
  family: SourceFamily;
  /** What limits and budgets reserve at admission. */
  admission: AdmissionHint;
}

/**
 * Runs a translated call: tries the model's routes in order, moving on when a route cannot
 * express the request or its upstream is down, rate-limited or overloaded, as long as nothing
 * has been sent to the client yet.
 */
export async function runChat(call: ChatCall): Promise<ChatOutcome> {
  const { ctx, model } = call;
  checkModelAllowed(ctx.key!, model.id);
  ctx.model = model.id;
  const admitted = admitCall(ctx, model, call.family, call.admission);
  const reservation = isPromise(admitted) ? await admitted : admitted;
  // The route loop runs here rather than in a function of its own: every async layer between
  // the front door and the upstream call costs each request a promise and a microtask.
  let first: GatewayError | undefined;
  let ir: ChatRequest | undefined;
  try {
    for (const target of model.routes) {
      const upstream = ctx.services.upstreams.get(target.provider)!;
      ctx.provider = target.provider;
      try {
        let outcome: ChatOutcome;
        const pass = call.passthrough && selectPassthrough(upstream, target, call.family);
        if (pass) {
          const passCall = Object.assign({}, call.passthrough!) as PassthroughCall;
          passCall.target = target;
          passCall.warn = (message) => void call.warnings.push(message);
          outcome = { kind: 'reply', reply: await runPassthrough(ctx, upstream, pass, passCall), target };
        } else {
          ir ??= call.request();
          const req = Object.assign({}, ir);
          req.model = target.upstreamModel;
          const routeWarnings: string[] = [];
          let wire: UpstreamRequest;
          try {
            const written = upstream.writeRequest(req, target, (message) => routeWarnings.push(message));
            wire = isPromise(written) ? await written : written;
          } catch (err) {
            // This route cannot express the request; a later one may (a host with file support, say).
            if (!isGatewayError(err)) throw err;
            first ??= err;
            continue;
          }
          outcome = await callRoute(ctx, upstream, target, req, wire);
          call.warnings.push(...routeWarnings);
        }
        return reservation ? meterOutcome(ctx, outcome, reservation, call.family) : outcome;
      } catch (err) {
        if (!isGatewayError(err) || !isTransientUpstreamError(err)) throw err;
        first ??= err;
      }
    }
    throw first!;
  } catch (err) {
    reservation?.settle({ status: toGatewayError(err).status, latencyMs: performance.now() - ctx.started, aborted: ctx.signal.aborted });
    throw err;
  }
}

async function callRoute(ctx: RequestContext, upstream: Upstream, target: RouteTarget, req: ChatRequest, wire: UpstreamRequest): Promise<ChatOutcome> {
  const res = await sendUpstream(ctx, target.provider, wire, timeoutFor(ctx, target.config.timeoutMs));
  if (!res.ok) throw await readUpstreamError(upstream, res);
  if (req.stream) {
    const body = res.reader?.() ?? res.body;
    if (!body) throw new GatewayError('upstream', `Upstream "${target.provider}" sent an empty stream`);
    // An upstream whose first event is already an error (a throttling frame, an error chunk)
    // gets a real HTTP status, and another route a turn, instead of a 200 with an error frame.
    const { first, stream } = await openStaged(body, upstream.readStream(req));
    if (first?.type === 'error') {
      void stream.cancel().catch(() => {});
      throw first.error;
    }
    return { kind: 'stream', events: stream, target };
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch (err) {
    throw new GatewayError('upstream', `Upstream "${target.provider}" sent a body that is not JSON`, { cause: err });
  }
  return { kind: 'result', result: upstream.readResponse(body, req), target };
}
