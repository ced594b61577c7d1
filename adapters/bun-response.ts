import { joinBytes, joinChunks } from '../core/http/join-bytes.ts';
import { Reply, replyToResponse, type ChunkReader } from '../core/index.ts';
import { readAhead, type ReadResult } from './bun-read-ahead.ts';
import { atTurnEnd } from './turn-end.ts';

/**
 * core's answer → a Bun Response. A streamed body goes through one of Bun's "direct" streams,
 * which write each chunk straight to the socket (no queue and no pull promise per chunk, as
 * a default ReadableStream has); everything else is core's own conversion. A Reply that is whole
 * (not streamed, or a stream that has already ended) goes to Bun at the turn's end, with the
 * turn's other writes. `written` is called once nothing of the answer is left to relay: after
 * the last chunk of a streamed Reply (before the stream closes: Bun ignores a request's settings
 * after that), as a whole answer goes to Bun (not before: serveBun gives the connection its idle
 * limit back in it, and a short limit could run out while the answer waits for the turn's end).
 * `handOver`: how a whole answer goes to Bun, calling `written` as it does; bench:core's probe
 * hands it over at once, so that it times the path and not an event-loop turn per request, which
 * the server shares among a turn's requests.
 */
export function writeBunResponse(
  reply: Reply | Response,
  written?: () => void,
  handOver: (response: Response, written?: () => void) => Response | Promise<Response> = handOverAtTurnEnd,
): Response | Promise<Response> {
  if (!(reply instanceof Reply)) {
    written?.();
    return replyToResponse(reply);
  }
  const body = reply.body;
  if (!reply.streaming || body === null || typeof body === 'string' || body instanceof Uint8Array) {
    return handOver(replyToResponse(reply), written);
  }
  const reader: ChunkReader = body instanceof ReadableStream ? body.getReader() : body;
  // What the reader already holds, taken without a read: an answer that came whole with the
  // upstream's headers (the usual short one) is one body at once, with no read-ahead turn.
  const taken = reader.readBuffered?.();
  if (taken?.done) {
    return handOver(new Response(joinChunks(taken.chunks) as BodyInit, { status: reply.status, headers: reply.headers }), written);
  }
  return writeStillComing(reply, reader, taken?.chunks, written);
}

/**
 * An answer still coming when it was handed over. Apart from writeBunResponse: its closures, even
 * unmade, gave every call (most answers are whole) a scope object (see runHandlers in core/dispatch.ts).
 */
function writeStillComing(reply: Reply, reader: ChunkReader, taken: Uint8Array[] | undefined, written: (() => void) | undefined): Promise<Response> {
  return readAhead(reader, taken).then((ahead) => {
    // A stream that ended within the read-ahead (a short answer, a fast upstream) is one body:
    // no direct stream, pull or async frame for it.
    if (ahead.done) {
      written?.();
      return new Response(joinBytes(ahead.chunks, ahead.size) as BodyInit, { status: reply.status, headers: reply.headers });
    }
    const stream = new ReadableStream({
      type: 'direct',
      async pull(controller: { write(chunk: Uint8Array): number | Promise<number>; flush(wait?: boolean): number | Promise<number>; close(): void }) {
        // What was already here goes out with the headers, in one send.
        for (const chunk of ahead.chunks) controller.write(chunk);
        // A read that throws (a relayed stream whose upstream broke off) propagates: Bun then cuts
        // the connection, so the client sees a broken stream, not a complete-looking one.
        let next: Promise<ReadResult> | undefined = ahead.next;
        for (;;) {
          const { done, value } = await (next ?? reader.read());
          next = undefined;
          if (done) break;
          const wrote = controller.write(value);
          controller.flush();
          // A client reading slower than the upstream sends: Bun hands back a promise once the
          // socket's buffer is full, and the next read waits for it, which leaves the rest in the
          // upstream's socket (adapters/bun-upstream.ts pauses it) instead of in memory here.
          if (typeof wrote !== 'number') await wrote;
        }
        written?.();
        controller.close();
      },
      cancel: (reason: unknown) => reader.cancel(reason),
    } as unknown as UnderlyingDefaultSource<Uint8Array>);
    return new Response(stream, { status: reply.status, headers: reply.headers });
  });
}

/**
 * A whole answer goes to Bun at the turn's end, with the other answers and upstream requests of
 * the turn, so that one wake-up of their readers serves them all (adapters/turn-end.ts). A live
 * stream's Response goes at once, so its first chunk is never held.
 */
export function handOverAtTurnEnd(response: Response, written?: () => void): Promise<Response> {
  handing = response;
  handingWritten = written;
  const promise = new Promise(queueHandOver);
  handing = handingWritten = undefined;
  return promise;
}

// The answer the promise being made is for: the executor runs at once, within `new Promise`, and a
// module-level one makes no closure (nor scope object) per answer, as an arrow over both did.
let handing: Response | undefined;
let handingWritten: (() => void) | undefined;

function queueHandOver(resolve: (response: Response) => void): void {
  atTurnEnd(handOver, resolve, handing!, handingWritten);
}

// Bun takes the Response in this turn's promise jobs, before any timer of its own can run.
function handOver(resolve: (response: Response) => void, response: Response, written: (() => void) | undefined): void {
  written?.();
  resolve(response);
}
