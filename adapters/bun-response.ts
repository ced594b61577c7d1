import { Reply, replyToResponse, type ChunkReader } from '../core/index.ts';

/**
 * core's answer → a Bun Response. A streamed body goes through one of Bun's "direct" streams,
 * which write each chunk straight to the socket (no queue and no pull promise per chunk, as
 * a default ReadableStream has); everything else is core's own conversion.
 */
export function writeBunResponse(reply: Reply | Response): Response {
  if (!(reply instanceof Reply) || !reply.streaming || reply.body === null || typeof reply.body === 'string' || reply.body instanceof Uint8Array) {
    return replyToResponse(reply);
  }
  const body = reply.body;
  const reader: ChunkReader = body instanceof ReadableStream ? body.getReader() : body;
  const stream = new ReadableStream({
    type: 'direct',
    async pull(controller: { write(chunk: Uint8Array): void; flush(): void; close(): void }) {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          controller.write(value);
          controller.flush();
        }
      } catch {
        // The body failed after headers went out: end the response (the family's error frame, if
        // any, was already written by core's stream guard).
      }
      controller.close();
    },
    cancel: (reason: unknown) => reader.cancel(reason),
  } as unknown as UnderlyingDefaultSource<Uint8Array>);
  return new Response(stream, { status: reply.status, headers: reply.headers });
}
