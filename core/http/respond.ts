import type { RequestContext } from '../context.ts';

export function withRequestId(ctx: RequestContext, headers: Headers = new Headers()): Headers {
  // Anthropic's SDK reads `request-id`, OpenAI's reads `x-request-id`.
  headers.set('request-id', ctx.id);
  headers.set('x-request-id', ctx.id);
  return headers;
}

export function jsonResponse(ctx: RequestContext, body: unknown, status = 200, headers?: Headers): Response {
  const h = withRequestId(ctx, headers);
  h.set('content-type', 'application/json');
  return new Response(JSON.stringify(body), { status, headers: h });
}

export function sseResponse(ctx: RequestContext, body: ReadableStream<Uint8Array>, headers?: Headers): Response {
  const h = withRequestId(ctx, headers);
  h.set('content-type', 'text/event-stream; charset=utf-8');
  h.set('cache-control', 'no-cache');
  // Tells buffering reverse proxies (nginx) to pass events through as they come.
  h.set('x-accel-buffering', 'no');
  return new Response(body, { status: 200, headers: h });
}
