import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { abortCounter, listenLocal, sleep } from './fake-server.ts';

export { sleep };

/** What the fake upstream saw. */
export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** `body` parsed as JSON, when it is JSON. */
  json?: any;
}

/** How the fake upstream answers one request. */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value (sent with application/json), a string or raw bytes. */
  body?: unknown;
  /** Sent one by one, `delayMs` apart, flushed as they go: for streams. */
  chunks?: Iterable<string | Uint8Array>;
  delayMs?: number;
  /**
   * Send the chunks back to back as fast as the connection takes them, waiting only for its
   * 'drain' (a provider with the whole answer ready): how far the fake gets shows how much the
   * gateway reads ahead of its client.
   */
  paced?: boolean;
  /** Send headers and chunks, then keep the connection open until the client goes away. */
  hang?: boolean;
}

export type FakeHandler = (req: RecordedRequest) => FakeReply | Promise<FakeReply>;

export interface FakeUpstream {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  requests: RecordedRequest[];
  /** Responses whose client disconnected before the fake finished writing them (or began to). */
  aborts: number;
  /** Bytes of chunks written so far, over every reply. */
  chunkBytes: number;
  /** Replaces the handler for subsequent requests. */
  reply(handler: FakeHandler): void;
  /** Resolves once `aborts` reaches `count` (or rejects after `ms`). */
  waitForAborts(count: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 standing in for a provider: records every request and answers
 * from fixtures. Used by contract and runtime tests so that the gateway's own HTTP client,
 * streaming and cancellation are exercised end to end.
 */
export async function startFakeUpstream(initial: FakeHandler = () => ({ status: 404, body: { error: 'no handler' } })): Promise<FakeUpstream> {
  let handler = initial;
  const aborts = abortCounter('upstream');
  const requests: RecordedRequest[] = [];
  let chunkBytes = 0;
  const server: Server = createServer(async (req, res) => {
    const recorded = await record(req);
    requests.push(recorded);
    // Tracked from here: a client that leaves while the handler still works on its answer (a
    // model that has not sent its headers yet) aborts it too.
    const finish = aborts.track(res);
    let reply: FakeReply;
    try {
      reply = await handler(recorded);
    } catch (err) {
      reply = { status: 500, body: { error: String(err) } };
    }
    const headers: Record<string, string> = { ...reply.headers };
    if (reply.chunks) {
      headers['content-type'] ??= 'text/event-stream';
      res.writeHead(reply.status ?? 200, headers);
      res.flushHeaders();
      for (const chunk of reply.chunks) {
        if (res.destroyed) return;
        if (reply.delayMs) await sleep(reply.delayMs);
        if (res.destroyed) return;
        chunkBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
        if (!res.write(chunk) && reply.paced) await drained(res);
      }
      if (reply.hang) return;
      finish();
      res.end();
      return;
    }
    let payload: string | Uint8Array;
    if (reply.body instanceof Uint8Array || typeof reply.body === 'string') payload = reply.body;
    else {
      headers['content-type'] ??= 'application/json';
      payload = JSON.stringify(reply.body ?? {});
    }
    res.writeHead(reply.status ?? 200, headers);
    if (reply.hang) {
      res.flushHeaders();
      return;
    }
    finish();
    res.end(payload);
  });
  const { url, close } = await listenLocal(server);
  return {
    url,
    requests,
    get aborts() {
      return aborts.count;
    },
    get chunkBytes() {
      return chunkBytes;
    },
    reply(next) {
      handler = next;
    },
    waitForAborts: (count, ms) => aborts.waitFor(count, ms),
    close,
  };
}

/** Resolves when `res` can take more, or has closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

async function record(req: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  return { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, json };
}

/** Splits raw SSE wire text into its events (each keeps its trailing blank line) for `chunks`. */
export function sseChunks(wire: string): string[] {
  return wire.split(/(?<=\n\n)/).filter((c) => c.trim() !== '');
}
