import type { RequestContext } from '../context.ts';
import { Reply, type ChunkReader, type ReplyHeaders } from './reply.ts';

export function withRequestId(ctx: RequestContext, headers: ReplyHeaders = {}): ReplyHeaders {
  // Anthropic's SDK reads `request-id`, OpenAI's reads `x-request-id`.
  headers['request-id'] = ctx.id;
  headers['x-request-id'] = ctx.id;
  return headers;
}

export function jsonReply(ctx: RequestContext, body: unknown, status = 200, headers?: ReplyHeaders): Reply {
  const h = withRequestId(ctx, headers);
  h['content-type'] = 'application/json';
  return new Reply(status, h, JSON.stringify(body));
}

export function sseReply(ctx: RequestContext, body: ChunkReader | ReadableStream<Uint8Array>, headers?: ReplyHeaders): Reply {
  const h = withRequestId(ctx, headers);
  h['content-type'] = 'text/event-stream; charset=utf-8';
  h['cache-control'] = 'no-cache';
  // Tells buffering reverse proxies (nginx) to pass events through as they come.
  h['x-accel-buffering'] = 'no';
  return new Reply(200, h, body);
}
