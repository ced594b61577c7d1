import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Reply, type ChunkReader } from '../core/index.ts';
import { atTurnEnd } from './turn-end.ts';

/**
 * core's answer → node:http. A `Reply` goes out as it is: text and bytes in one write with their
 * length, made at the turn's end with the turn's other writes (adapters/turn-end.ts; the head is
 * checked and built at once), a streamed body chunk by chunk with write backpressure (one
 * that has already ended as one write, at the turn's end too), and a web Response (what
 * embedded handlers and a few core routes return) the same way after its headers are copied.
 * Not async: an async function returning the relay's promise would cost two more microtasks
 * and a promise on every request; the relay's promise (a body still going out) is returned as is.
 */
export function writeNodeReply(reply: Reply | Response, res: ServerResponse, req?: IncomingMessage): Promise<void> | undefined {
  if (!(reply instanceof Reply)) return writeNodeResponse(reply, res, req);
  const headers: OutgoingHttpHeaders = reply.headers;
  closeIfUnread(req, res, headers);
  const { body } = reply;
  if (body === null) {
    res.writeHead(reply.status, headers);
    atTurnEnd(endResponse, res, undefined);
    return undefined;
  }
  if (typeof body === 'string' || body instanceof Uint8Array) {
    headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    res.writeHead(reply.status, headers);
    atTurnEnd(endResponse, res, body);
    return undefined;
  }
  const reader = body instanceof ReadableStream ? body.getReader() : body;
  if (reply.streaming) return writeStream(reader, res, reply.status, headers);
  return writeWhole(reader, res, reply.status, headers);
}

function endResponse(res: ServerResponse, body: string | Uint8Array | undefined): void {
  res.end(body);
}

/** web Response → node:http, with write backpressure and upstream cancel on client disconnect. */
export async function writeNodeResponse(response: Response, res: ServerResponse, req?: IncomingMessage): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  closeIfUnread(req, res, headers);
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  if (!response.body) {
    res.writeHead(response.status, response.statusText, headers);
    res.end();
    return;
  }
  const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') || response.headers.get('x-accel-buffering') === 'no';
  const reader = response.body.getReader();
  if (streaming) return writeStream(reader, res, response.status, headers);
  return writeWhole(reader, res, response.status, headers);
}

/**
 * Answered before the request body was read (413, 401 on an upload): the unread rest would
 * stall the next request on this keep-alive connection, so the answer closes it. The close
 * lingers, as nginx's lingering close and Go's closeWriteAndWait do: closing a socket whose
 * received data is unread makes the kernel send a reset, and a client still writing its upload
 * then fails on write and drops the answer it has not parsed yet (seen: 1 to 6% of over-limit
 * chunked uploads lost their 413). So the answer is followed by a FIN, what the client still
 * sends is read and dropped, and the socket closes when the client closes its side or after
 * LINGER_MS.
 */
function closeIfUnread(req: IncomingMessage | undefined, res: ServerResponse, headers: OutgoingHttpHeaders): void {
  if (!req || req.complete) return;
  headers.connection = 'close';
  const socket = req.socket;
  // node:http ends a `connection: close` answer with socket.destroySoon(), which closes at once.
  socket.destroySoon = () => {
    socket.end();
    req.resume();
  };
  res.once('finish', () => {
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

/** How long a closing connection keeps reading what the client still sends (Go's server waits 500 ms). */
const LINGER_MS = 1_000;

/**
 * A body that is not a stream goes out whole, with its length, in one write: no per-chunk
 * writes. Streams are marked (text/event-stream or x-accel-buffering: no) and never come here.
 */
async function writeWhole(reader: ChunkReader, res: ServerResponse, status: number, headers: OutgoingHttpHeaders): Promise<void> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // The body failed before anything was sent (an upstream connection reset mid-answer).
    res.writeHead(502, { 'content-type': 'text/plain', connection: 'close' }).end('Bad gateway');
    return;
  }
  headers['content-length'] = size;
  res.writeHead(status, headers);
  res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
}

/**
 * Relays a stream as it arrives; the client leaving cancels the reader (and so the upstream call).
 * Not async: an answer that is already here whole (the usual short one) is written and ended
 * without the promise and microtask an async function costs; only the rest of a longer stream
 * goes through `relayRest`.
 */
function writeStream(reader: ChunkReader, res: ServerResponse, status: number, headers: OutgoingHttpHeaders): Promise<void> | undefined {
  // What came with the upstream's headers (a short answer often whole) is taken without a read.
  const ahead = reader.readBuffered?.();
  if (ahead?.done) {
    // Ended already: one body with its length, as the Bun adapter sends it, not chunked framing.
    const { chunks } = ahead;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    headers['content-length'] = body.byteLength;
    res.writeHead(status, headers);
    atTurnEnd(endResponse, res, body);
    return undefined;
  }
  // The rest leaves with the headers in one write (node:http corks a response's writes for the
  // rest of the turn).
  res.writeHead(status, headers);
  let writable = true;
  if (ahead) for (const chunk of ahead.chunks) writable = res.write(chunk);
  return relayRest(reader, res, writable, !ahead?.chunks.length);
}

/** The part of a stream still to come, read and written chunk by chunk with write backpressure. */
async function relayRest(reader: ChunkReader, res: ServerResponse, writable: boolean, headersOnly: boolean): Promise<void> {
  // A stream must show its headers before its first event, which may be a while; but when the
  // first chunk is already here (the usual case: it came with the upstream's headers), headers and
  // chunk leave in one write. setImmediate runs after this turn's promise jobs, so it fires only
  // when the first read is really waiting.
  const flush = headersOnly ? setImmediate(() => res.flushHeaders()) : undefined;
  const cancel = () => void reader.cancel().catch(() => {});
  res.once('close', cancel);
  try {
    for (;;) {
      if (!writable) {
        if (res.destroyed) break;
        await drained(res);
        if (res.destroyed) break;
      }
      const { done, value } = await reader.read();
      clearImmediate(flush);
      if (done) break;
      writable = res.write(value);
    }
    res.end();
  } catch {
    // The body errored after headers went out: all that is left is to cut the connection.
    res.destroy();
  } finally {
    clearImmediate(flush);
    res.off('close', cancel);
  }
}

/** The client has taken what was written (or gone): write backpressure. */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const go = () => {
      res.off('drain', go);
      res.off('close', go);
      resolve();
    };
    res.on('drain', go);
    res.on('close', go);
  });
}

const DONE = { done: true, value: undefined } as const;

/**
 * A Node Readable (node:http's request body; upstream answers have their own reader, see
 * node-upstream-call.ts) as a chunk reader: a buffered chunk comes back at once, otherwise the
 * read waits for the next one. Cancel destroys the source (an upload refused at 413 → its socket
 * closed). `streamOfReader` makes it a web stream where one is asked for.
 */
export function readChunks(source: Readable): ChunkReader {
  return {
    read() {
      const chunk = source.read() as Buffer | null;
      if (chunk !== null) return Promise.resolve({ done: false, value: chunk });
      if (source.readableEnded || readEnded(source)) return Promise.resolve(DONE);
      if (source.errored) return Promise.reject(source.errored);
      return new Promise((resolve, reject) => {
        const settle = () => {
          source.off('readable', settle);
          source.off('end', settle);
          source.off('error', settle);
          source.off('close', settle);
          const next = source.read() as Buffer | null;
          if (next !== null) resolve({ done: false, value: next });
          else if (source.errored) reject(source.errored);
          else if (source.readableEnded || source.destroyed) resolve(DONE);
          // 'readable' can fire with nothing to read (end pending): wait again.
          else wait();
        };
        const wait = () => {
          source.on('readable', settle);
          source.on('end', settle);
          source.on('error', settle);
          source.on('close', settle);
        };
        wait();
      });
    },
    async cancel(reason) {
      // undici errors a body destroyed before its end ("Request aborted"); nobody reads it now.
      source.on('error', () => {});
      source.destroy(reason instanceof Error ? reason : undefined);
    },
  };
}

/**
 * The source has had its end and nothing is buffered, though 'end' is not emitted yet (Node
 * emits it a tick later). Answering done now lets a relay end its response in the same turn as
 * its last write, so node:http sends the last chunk and the chunked terminator in one `writev`
 * instead of a second write (a syscall per streamed answer).
 */
function readEnded(source: Readable): boolean {
  return (source as Readable & { _readableState?: { ended?: boolean } })._readableState?.ended === true;
}
