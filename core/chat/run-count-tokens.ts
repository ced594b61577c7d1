import type { CatalogModel, RouteTarget } from '../catalog.ts';
import type { RequestContext } from '../context.ts';
import { isGatewayError } from '../errors.ts';
import { toClientError } from './read-upstream-error.ts';
import { isTransientUpstreamError } from './retryable.ts';
import type { ChatRequest, SourceFamily } from '../ir.ts';
import { checkModelAllowed } from '../keys.ts';
import type { PassthroughCall } from '../upstreams/types.ts';
import { estimateInputTokens } from './estimate-tokens.ts';
import { runPassthrough } from './run-passthrough.ts';
import { selectPassthrough } from './select-passthrough.ts';
import { sendUpstream, timeoutFor } from './send-upstream.ts';
import type { Reply } from '../http/reply.ts';

/** Response header telling clients whether a count came from the provider or is our estimate. */
export const TOKEN_COUNT_HEADER = 'x-switchyard-token-count';

export type CountOutcome =
  | { kind: 'count'; inputTokens: number; source: 'upstream' | 'estimate'; target?: RouteTarget }
  /** The same-family fast path answered (header already set): relay this response as it is. */
  | { kind: 'reply'; reply: Reply; target: RouteTarget };

export interface CountCall {
  ctx: RequestContext;
  model: CatalogModel;
  /** Reads the client body into IR; called at most once, and only if some route needs it. */
  request: () => ChatRequest;
  family: SourceFamily;
  /** Offered by front doors whose family an upstream takes verbatim (action count_tokens / countTokens). */
  passthrough?: Omit<PassthroughCall, 'target'>;
}

/**
 * Counts input tokens with the model's first usable route: the client's body relayed as it is
 * when the upstream speaks the client's family, else the upstream's own counter, else a local
 * estimate. A route that is down moves on to the next; when none can count, the answer is an
 * estimate, marked as one, so a client's compaction logic keeps working.
 */
export async function runCountTokens(call: CountCall): Promise<CountOutcome> {
  const { ctx, model } = call;
  checkModelAllowed(ctx.key!, model.id);
  ctx.model = model.id;
  let ir: ChatRequest | undefined;
  for (const target of model.routes) {
    const upstream = ctx.services.upstreams.get(target.provider)!;
    ctx.provider = target.provider;
    try {
      const pass = call.passthrough && selectPassthrough(upstream, target, call.family);
      if (pass) {
        try {
          const passCall = Object.assign({}, call.passthrough!) as PassthroughCall;
          passCall.target = target;
          const reply = await runPassthrough(ctx, upstream, pass, passCall);
          reply.headers[TOKEN_COUNT_HEADER] = 'upstream';
          return { kind: 'reply', reply, target };
        } catch (err) {
          // Relayed counters refuse too: Bedrock's CountTokens answers 400 for cross-region
          // inference profiles and newer Claude models. A body the IR cannot hold keeps the upstream's error.
          if (!counterRefused(err)) throw err;
          try {
            ir ??= call.request();
          } catch {
            throw err;
          }
          return { kind: 'count', inputTokens: estimateInputTokens(ir), source: 'estimate', target };
        }
      }
      ir ??= call.request();
      // The first route's model is the one whose tokenizer matters; a later route's counter would measure another model.
      if (!upstream.countTokens) return { kind: 'count', inputTokens: estimateInputTokens(ir), source: 'estimate', target };
      const timeout = timeoutFor(ctx, target.config.timeoutMs);
      try {
        const req = Object.assign({}, ir);
        req.model = target.upstreamModel;
        const inputTokens = await upstream.countTokens(req, target, (request) => sendUpstream(ctx, target.provider, request, timeout));
        return { kind: 'count', inputTokens, source: 'upstream', target };
      } catch (err) {
        // A counter that refuses this model or body (Bedrock has none for gpt-oss) must not turn
        // count_tokens into an error: clients compact on it. The estimate is marked as such.
        if (counterRefused(err)) {
          return { kind: 'count', inputTokens: estimateInputTokens(ir), source: 'estimate', target };
        }
        throw toClientError(err);
      }
    } catch (err) {
      if (!isGatewayError(err) || !isTransientUpstreamError(err)) throw err;
    }
  }
  ir ??= call.request();
  return { kind: 'count', inputTokens: estimateInputTokens(ir), source: 'estimate' };
}

/** The counter answered, but not with a count (unsupported model, body or permission): not worth another route. */
function counterRefused(err: unknown): boolean {
  return isGatewayError(err) && !isTransientUpstreamError(err) && err.kind !== 'authentication';
}
