import { Reply, replyToResponse, type ChunkReader } from '../core/index.ts';

type ReadResult = ReadableStreamReadResult<Uint8Array>;

/**
 * core's answer → a Bun Response. A streamed body goes through one of Bun's "direct" streams,
 * which write each chunk straight to the socket (no queue and no pull promise per chunk, as
 * a default ReadableStream has); everything else is core's own conversion.
 */
export function writeBunResponse(reply: Reply | Response): Response | Promise<Response> {
  if (!(reply instanceof Reply) || !reply.streaming || reply.body === null || typeof reply.body === 'string' || reply.body instanceof Uint8Array) {
    return replyToResponse(reply);
  }
  const body = reply.body;
  const reader: ChunkReader = body instanceof ReadableStream ? body.getReader() : body;
  return readAhead(reader).then((ahead) => {
    const stream = new ReadableStream({
      type: 'direct',
      async pull(controller: { write(chunk: Uint8Array): void; flush(): void; close(): void }) {
        // What was already here goes out with the headers, in one send; a stream that ended
        // within it goes out whole, terminator included.
        for (const chunk of ahead.chunks) controller.write(chunk);
        if (ahead.done) return controller.close();
        // A read that throws (a relayed stream whose upstream broke off) propagates: Bun then cuts
        // the connection, so the client sees a broken stream, not a complete-looking one.
        let next: Promise<ReadResult> | undefined = ahead.next;
        for (;;) {
          const { done, value } = await (next ?? reader.read());
          next = undefined;
          if (done) break;
          controller.write(value);
          controller.flush();
        }
        controller.close();
      },
      cancel: (reason: unknown) => reader.cancel(reason),
    } as unknown as UnderlyingDefaultSource<Uint8Array>);
    return new Response(stream, { status: reply.status, headers: reply.headers });
  });
}

/**
 * Bun calls a direct stream's pull as soon as the Response is returned, and sends what the pull
 * wrote before its first await: the headers alone when the first chunk is still a read away.
 * So the chunks that are already here (usually all of a relayed answer) are read first, until a
 * read has to wait: setImmediate runs after this turn's promise jobs, so it fires only then.
 */
function readAhead(reader: ChunkReader): Promise<{ chunks: Uint8Array[]; done: boolean; next?: Promise<ReadResult> }> {
  const chunks: Uint8Array[] = [];
  return new Promise((resolve) => {
    let waiting = true;
    const timer = setImmediate(() => {
      waiting = false;
      resolve({ chunks, done: false, next: pending });
    });
    let pending: Promise<ReadResult>;
    const readNext = () => {
      pending = reader.read();
      pending.then(
        (result) => {
          if (!waiting) return;
          if (result.done) {
            clearImmediate(timer);
            waiting = false;
            resolve({ chunks, done: true });
          } else {
            chunks.push(result.value);
            readNext();
          }
        },
        () => {
          if (!waiting) return;
          // The failure surfaces from `next` in the pull, after the headers (as before).
          clearImmediate(timer);
          waiting = false;
          resolve({ chunks, done: false, next: pending });
        },
      );
    };
    readNext();
  });
}
