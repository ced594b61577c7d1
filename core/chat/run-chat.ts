import type { Reservation } from '../accounting/types.ts';
import type { CatalogModel, RouteTarget } from '../catalog.ts';
import type { RequestContext } from '../context.ts';
import { GatewayError, isGatewayError, toGatewayError } from '../errors.ts';
import type { ChatRequest, ChatResult, SourceFamily, StreamEvent } from '../ir.ts';
import { Reply } from '../http/reply.ts';
import { openStaged, type StagedStream } from '../http/staged-stream.ts';
import { checkModelAllowed } from '../keys.ts';
import { isPromise, type MaybePromise } from '../maybe-promise.ts';
import type { PassthroughCall, ReadRequest, Upstream, UpstreamRequest, UpstreamResponse } from '../upstreams/types.ts';
import { admitCall, meterOutcome, type AdmissionHint } from './meter-call.ts';
import { readUpstreamError } from './read-upstream-error.ts';
import { isTransientUpstreamError } from './retryable.ts';
import { runPassthrough } from './run-passthrough.ts';
import { selectPassthrough } from './select-passthrough.ts';
import { mapSendError, startUpstream, timeoutFor } from './send-upstream.ts';

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
 * Runs a call: tries the model's routes in order, moving on when a route cannot express the
 * request or its upstream is down, rate-limited or overloaded, as long as nothing has been sent
 * to the client yet. Not async: see ChatRun.
 */
export function runChat(call: ChatCall): Promise<ChatOutcome> {
  const { ctx, model } = call;
  try {
    checkModelAllowed(ctx.key!, model.id);
    ctx.model = model.id;
    const admitted = admitCall(ctx, model, call.family, call.admission);
    return isPromise(admitted) ? runOnceAdmitted(admitted, call) : new ChatRun(call, admitted).from(0);
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Apart from runChat: its closure, even unmade, gave every call a scope object (see runHandlers in dispatch.ts). */
function runOnceAdmitted(admitted: Promise<Reservation | undefined>, call: ChatCall): Promise<ChatOutcome> {
  return admitted.then((reservation) => new ChatRun(call, reservation).from(0));
}

/** What a translated route answers when it cannot express the request: the next route may. */
const CANNOT_EXPRESS = Symbol('cannot express');

/**
 * One call's walk over its model's routes, as promise callbacks on each route's attempt rather
 * than an async function around them: every async layer between the front door and the upstream
 * call costs each request a promise and microtasks, and the passthrough's attempt is the
 * upstream call's own promise. `from` either returns a promise or throws (callers turn a throw
 * into a rejection).
 */
class ChatRun {
  first: GatewayError | undefined = undefined;
  /** The client body read into IR, once, by the first route that translates. */
  ir: ChatRequest | undefined = undefined;

  constructor(
    readonly call: ChatCall,
    readonly reservation: Reservation | undefined,
  ) {}

  from(index: number): Promise<ChatOutcome> {
    const { call } = this;
    const { ctx } = call;
    const routes = call.model.routes;
    if (index >= routes.length) return this.fail(this.first!);
    const target = routes[index]!;
    const upstream = ctx.services.upstreams.get(target.provider)!;
    ctx.provider = target.provider;
    let attempt: Promise<Reply | ChatOutcome | typeof CANNOT_EXPRESS>;
    try {
      const pass = call.passthrough && selectPassthrough(upstream, target, call.family);
      if (pass) {
        // The passthrough sends the client's bytes: a large body's parsed object can go (see
        // JsonBody); a translation after it parses the text again.
        call.passthrough!.source.release();
        // One literal, so that every front door's call has the same shape (the writers and
        // runPassthrough see one); its `warn` is the front door's own, if it gave one.
        const { source, headers, action, stream, warn } = call.passthrough!;
        const passCall: PassthroughCall = { target, source, headers, action, stream, warn };
        attempt = runPassthrough(ctx, upstream, pass, passCall, index === routes.length - 1);
      } else {
        attempt = this.translate(upstream, target);
      }
    } catch (err) {
      return this.fail(err);
    }
    return attempt.then(
      (answer) => (answer === CANNOT_EXPRESS ? this.from(index + 1) : this.finish(answer instanceof Reply ? { kind: 'reply', reply: answer, target } : answer)),
      (err: unknown) => {
        if (!isGatewayError(err) || !isTransientUpstreamError(err)) return this.fail(err);
        this.first ??= err;
        return this.from(index + 1);
      },
    );
  }

  /** Not async either: the attempt is callRoute's own promise. A sync throw is the caller's to turn into a rejection. */
  translate(upstream: Upstream, target: RouteTarget): Promise<ChatOutcome | typeof CANNOT_EXPRESS> {
    const { call } = this;
    this.ir ??= call.request();
    const req = Object.assign({}, this.ir);
    req.model = target.upstreamModel;
    const routeWarnings: string[] = [];
    // This route cannot express the request; a later one may (a host with file support, say).
    const cannot = (err: unknown): typeof CANNOT_EXPRESS => {
      if (!isGatewayError(err)) throw err;
      this.first ??= err;
      return CANNOT_EXPRESS;
    };
    let written: MaybePromise<UpstreamRequest>;
    try {
      written = upstream.writeRequest(req, target, (message) => routeWarnings.push(message));
    } catch (err) {
      return Promise.resolve(cannot(err));
    }
    // Once the last route's request is written, neither the client's body nor the IR is read
    // again: held until the upstream answered, a long prompt outlived young collections (see
    // JsonBody.drop). The call itself needs the model and whether it streams.
    if (target === call.model.routes.at(-1)) {
      call.passthrough?.source.drop();
      this.ir = undefined;
    }
    const head = { model: req.model, stream: req.stream };
    if (isPromise(written)) return written.then((wire) => callRoute(call, upstream, target, head, wire, routeWarnings), cannot);
    return callRoute(call, upstream, target, head, written, routeWarnings);
  }

  finish(outcome: ChatOutcome): ChatOutcome {
    if (!this.reservation) return outcome;
    try {
      return meterOutcome(this.call.ctx, outcome, this.reservation, this.call.family);
    } catch (err) {
      return this.fail(err);
    }
  }

  /** Releases the reservation and passes the error on. */
  fail(err: unknown): never {
    const { ctx } = this.call;
    this.reservation?.settle({ status: toGatewayError(err).status, latencyMs: performance.now() - ctx.started, aborted: ctx.signal.aborted });
    throw err;
  }
}

/** One translated route's call; its warnings join the call's only when it answers. */
async function callRoute(call: ChatCall, upstream: Upstream, target: RouteTarget, head: Pick<ChatRequest, 'model' | 'stream'>, wire: UpstreamRequest, routeWarnings: readonly string[]): Promise<ChatOutcome> {
  const { ctx } = call;
  const timeoutMs = timeoutFor(ctx, target.config.timeoutMs);
  let res: UpstreamResponse;
  // Inline, not a shared helper: a helper's own promise would be the hop startUpstream saves.
  try {
    res = await startUpstream(ctx, target.provider, wire, timeoutMs);
  } catch (err) {
    throw mapSendError(ctx, target.provider, timeoutMs, err);
  }
  if (!res.ok) throw await readUpstreamError(upstream, res);
  const req: ReadRequest = wire.webSearch ? { model: head.model, webSearch: true } : head;
  if (head.stream) {
    const body = res.reader?.() ?? res.body;
    if (!body) throw new GatewayError('upstream', `Upstream "${target.provider}" sent an empty stream`);
    // An upstream whose first event is already an error (a throttling frame, an error chunk)
    // gets a real HTTP status, and another route a turn, instead of a 200 with an error frame.
    const { first, stream } = await openStaged(body, upstream.readStream(req));
    if (first?.type === 'error') {
      void stream.cancel().catch(() => {});
      throw first.error;
    }
    call.warnings.push(...routeWarnings);
    return { kind: 'stream', events: stream, target };
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch (err) {
    throw new GatewayError('upstream', `Upstream "${target.provider}" sent a body that is not JSON`, { cause: err });
  }
  const result = upstream.readResponse(body, req);
  call.warnings.push(...routeWarnings);
  return { kind: 'result', result, target };
}
