import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** web Response → node:http, with write backpressure and upstream cancel on client disconnect. */
export async function writeNodeResponse(response: Response, res: ServerResponse, req?: IncomingMessage): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  // Answered before the request body was read (413, 401 on an upload): the unread rest would
  // stall the next request on this keep-alive connection, so close it instead.
  if (req && !req.complete) {
    headers.connection = 'close';
    res.once('finish', () => req.destroy());
  }
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
  if (!streaming) {
    // A plain JSON answer goes out whole, with its length, in one write: no per-chunk promise
    // hops. Streams are marked (text/event-stream or x-accel-buffering: no) and never take this path.
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch {
      // The body failed before anything was sent (an upstream connection reset mid-answer).
      res.writeHead(502, { 'content-type': 'text/plain', connection: 'close' }).end('Bad gateway');
      return;
    }
    headers['content-length'] = String(bytes.byteLength);
    res.writeHead(response.status, response.statusText, headers);
    res.end(bytes);
    return;
  }
  res.writeHead(response.status, response.statusText, headers);
  // A stream must show its headers before its first event, which may be a while.
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        if (res.destroyed) break;
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
        if (res.destroyed) break;
      }
    }
    res.end();
  } catch {
    // The body errored after headers went out: all that is left is to cut the connection.
    res.destroy();
  } finally {
    res.off('close', cancel);
  }
}

/**
 * A Node Readable as a web ReadableStream that pulls one chunk per read (backpressure kept) and
 * destroys the source when the reader cancels (client gone → upstream connection dropped).
 */
export function readWebStream(source: Readable): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on('error', (err) => controller.error(err));
        source.on('end', () => {
          try {
            controller.close();
          } catch {
            // already errored or cancelled
          }
        });
      },
      pull(controller) {
        return new Promise<void>((resolve) => {
          const chunk = source.read() as Buffer | null;
          if (chunk !== null) {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            return resolve();
          }
          const ready = () => {
            source.off('readable', ready);
            source.off('end', ready);
            source.off('error', ready);
            const next = source.read() as Buffer | null;
            if (next !== null) controller.enqueue(new Uint8Array(next.buffer, next.byteOffset, next.byteLength));
            resolve();
          };
          source.on('readable', ready);
          source.on('end', ready);
          source.on('error', ready);
        });
      },
      cancel(reason) {
        source.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
