import type { RequestContext } from '../context.ts';
import { GatewayError } from '../errors.ts';
import { isPromise } from '../maybe-promise.ts';
import { readRelayedHeaders } from '../http/relayed-headers.ts';
import { peekStream } from '../http/peek-stream.ts';
import { Reply } from '../http/reply.ts';
import { withRequestId } from '../http/respond.ts';
import type { Passthrough, PassthroughCall, Upstream, UpstreamResponse } from '../upstreams/types.ts';
import { readUpstreamError } from './read-upstream-error.ts';
import { mapSendError, startUpstream, timeoutFor } from './send-upstream.ts';

/**
 * Same-family fast path: forwards the client's body (model rewritten) and relays the upstream
 * answer. A stream is relayed as it arrives; a JSON answer is read whole and sent in one write
 * (it is not a stream, and one write with a length is cheaper than relaying pieces). Headers are
 * rebuilt: the upstream's content type, our request id and, on streams, what translated streams
 * carry too (see readRelayedHeaders for why nothing else of the upstream's). Errors
 * are mapped like any other upstream error, so upstream internals never reach the client raw.
 * `lastUse`: no later route will read the client's body, which can then go once the request is
 * written (see JsonBody.drop).
 */
export async function runPassthrough(ctx: RequestContext, upstream: Upstream, pass: Passthrough, call: PassthroughCall, lastUse = false): Promise<Reply> {
  const { target } = call;
  const written = pass.writeRequest(call);
  const wire = isPromise(written) ? await written : written;
  if (lastUse) call.source.drop();
  const timeoutMs = timeoutFor(ctx, target.config.timeoutMs);
  let res: UpstreamResponse;
  // Inline, not a shared helper: a helper's own promise would be the hop startUpstream saves.
  try {
    res = await startUpstream(ctx, target.provider, wire, timeoutMs);
  } catch (err) {
    throw mapSendError(ctx, target.provider, timeoutMs, err);
  }
  if (!res.ok) throw await readUpstreamError(upstream, res);
  const headers = withRequestId(ctx, readRelayedHeaders(res.headers));
  const streamed = call.stream || call.action === 'streamGenerateContent';
  // Marks every streamed answer, SSE or Gemini's JSON array (which is application/json), so that
  // nothing between here and the client (adapters, nginx) holds it back.
  if (streamed) {
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
  }
  if (!pass.readBody) {
    // A stream that has already ended (a short answer) goes on as its bytes: no reader, no usage
    // tap around it, and the adapter writes it whole.
    if (streamed) return new Reply(res.status, headers, res.takeWhole?.() ?? res.reader?.() ?? res.body);
    try {
      return new Reply(res.status, headers, res.bytes ? await res.bytes() : new Uint8Array(await res.arrayBuffer()));
    } catch (err) {
      throw new GatewayError('upstream', `Upstream "${target.provider}" broke off its answer`, { cause: err });
    }
  }
  headers['content-type'] = call.stream ? 'text/event-stream; charset=utf-8' : 'application/json';
  // A re-framed body errors its first read when the upstream failed before sending anything
  // (Bedrock's exception frames): that is still a proper HTTP error, not a 200 with an error event.
  const { stream } = await peekStream(pass.readBody(res, call));
  return new Reply(res.status, headers, stream);
}
