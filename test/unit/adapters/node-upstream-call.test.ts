import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNodeReply } from '../../../adapters/node-io.ts';
import { createUndiciFetch } from '../../../adapters/node-upstream.ts';
import { tapPassthroughUsage } from '../../../core/chat/read-passthrough-usage.ts';
import { ClientAbort, Reply, type ChunkReader } from '../../../core/index.ts';
import { tapSocketWrites } from '../../helpers/socket-writes.ts';
import { readAnswerText } from '../../helpers/streams.ts';

// The Node upstream client reads answers through its own undici dispatch handler
// (adapters/node-upstream-call.ts) instead of undici's stream: these are the duties that
// stream had, each over real HTTP.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
}

const post = (url: string, init: { signal?: ClientAbort; headersTimeoutMs?: number } = {}) =>
  createUndiciFetch()(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', ...init } as never);

/** Resolves when the upstream sees its request's connection close. */
function closedOn(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => req.socket.once('close', () => resolve()));
}

describe('createUndiciFetch: an answer read through the dispatch handler', () => {
  it('gives status and headers once they are in, and the body as it arrives, in order', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' });
      res.write('event: a\n\n');
      setTimeout(() => res.end('event: b\n\n'), 30);
    });
    const answer = await post(url);
    expect(answer.status).toBe(200);
    expect(answer.ok).toBe(true);
    expect(answer.headers.get('X-Request-Id')).toBe('req_1');
    expect(await readAnswerText(answer)).toBe('event: a\n\nevent: b\n\n');
  });

  it('skips an informational 103 and answers with the final status', async () => {
    const url = await serve((_req, res) => {
      res.writeEarlyHints({ link: '</x>; rel=preload' });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":1}');
    });
    const answer = await post(url);
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ id: 1 });
  });

  it('holds back a large answer nobody reads (the upstream is paused) and delivers it whole once read', async () => {
    // 64 MiB: more than loopback's socket buffers hold, so only a paused reader stops the upstream.
    const piece = 'x'.repeat(16 * 1024);
    const pieces = 4096;
    let refused = 0;
    let written = 0;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const pump = () => {
        while (written < pieces) {
          written++;
          if (!res.write(piece)) {
            refused++;
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const answer = await post(url);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // With the reader idle, the upstream had to stop and wait.
    expect(written).toBeLessThan(pieces / 4);
    expect(refused).toBeGreaterThan(0);
    const text = await answer.text();
    expect(text.length).toBe(pieces * piece.length);
  });

  it('rejects with the client signal reason when the client leaves before the headers, and closes the upstream connection', async () => {
    let closed: Promise<void> | undefined;
    const url = await serve((req) => {
      closed = closedOn(req);
    });
    const signal = new ClientAbort();
    const pending = post(url, { signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    signal.abort(new Error('client gone'));
    await expect(pending).rejects.toThrow('client gone');
    await closed;
  });

  it('sends nothing upstream for a client already gone', async () => {
    let seen = 0;
    const url = await serve((_req, res) => {
      seen++;
      res.end('{}');
    });
    const signal = new ClientAbort();
    signal.abort();
    await expect(post(url, { signal })).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toBe(0);
  });

  it('fails a pending read when the client leaves mid-answer, and closes the upstream connection', async () => {
    let closed: Promise<void> | undefined;
    const url = await serve((req, res) => {
      closed = closedOn(req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\n\n');
    });
    const signal = new ClientAbort();
    const reader = (await post(url, { signal })).reader!();
    expect((await reader.read()).done).toBe(false);
    const pending = reader.read();
    signal.abort(new Error('client gone'));
    await expect(pending).rejects.toThrow('client gone');
    await closed;
  });

  it('cancel ends the reader and drops the upstream connection', async () => {
    let closed: Promise<void> | undefined;
    const url = await serve((req, res) => {
      closed = closedOn(req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\n\n');
    });
    const reader = (await post(url)).reader!();
    await reader.read();
    const pending = reader.read();
    await reader.cancel(new Error('client gone'));
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    await closed;
  });

  it('times out on headers as a TimeoutError, and rejects an unreachable upstream', async () => {
    const url = await serve(() => {});
    await expect(post(url, { headersTimeoutMs: 50 })).rejects.toMatchObject({ name: 'TimeoutError' });
    const refused = await serve(() => {});
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    await expect(post(refused)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('reads a body only once, and a 204 as empty', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}'));
    const answer = await post(url);
    expect(await answer.text()).toBe('{"a":1}');
    expect(() => answer.reader!()).toThrow('already been read');
    const empty = await serve((_req, res) => res.writeHead(204).end());
    const none = await post(empty);
    expect(none.body).toBeNull();
    expect(await none.text()).toBe('');
  });

  // A short upstream answer arrives whole (headers, events and end in one read). Relayed, it must
  // leave in one socket write: headers, the events and the chunked terminator together.
  it('relays an answer that arrived whole in one socket write to the client', async () => {
    const events = 'event: ping\ndata: {"type":"ping"}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
    const upstream = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': Buffer.byteLength(events) }).end(events));
    let writes = 0;
    const relay = await serve(async (req, res) => {
      tapSocketWrites(res, () => writes++);
      const answer = await post(upstream);
      await writeNodeReply(new Reply(200, { 'content-type': 'text/event-stream' }, answer.reader!()), res, req);
    });
    const got = await fetch(relay, { method: 'POST' });
    expect(await got.text()).toBe(events);
    expect(writes).toBe(1);
  });

  it('readBuffered takes what has arrived without a read, and says when the answer has ended', async () => {
    let finish: (() => void) | undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\n\n');
      finish = () => res.end('event: b\n\n');
    });
    const answer = await post(url);
    const reader = answer.reader!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const first = reader.readBuffered!()!;
    expect(Buffer.concat(first.chunks).toString('utf8')).toBe('event: a\n\n');
    expect(first.done).toBe(false);
    expect(reader.readBuffered!()).toEqual({ chunks: [], done: false });
    finish!();
    expect(Buffer.from((await reader.read()).value!).toString('utf8')).toBe('event: b\n\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reader.readBuffered!()).toEqual({ chunks: [], done: true });
    expect((await reader.read()).done).toBe(true);
  });

  // The relay takes a whole answer without reading it: the tap still sees every byte, and all of
  // it (several upstream chunks) leaves in one socket write, as one body with its length.
  it('relays a whole answer of several chunks through the usage tap with no read, in one socket write', async () => {
    const events = ['event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}\n\n', 'event: ping\ndata: {"type":"ping"}\n\n', 'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n'];
    const upstream = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Separate socket writes, so the answer arrives as several chunks.
      res.write(events[0]);
      setTimeout(() => res.write(events[1]), 10);
      setTimeout(() => res.end(events[2]), 20);
    });
    let writes = 0;
    let reads = 0;
    let chunks = 0;
    let relayed: Promise<void> | undefined;
    let ended = false;
    let endedAtOnce: boolean | undefined;
    const usage: unknown[] = [];
    const relay = await serve(async (req, res) => {
      tapSocketWrites(res, () => writes++);
      const answer = await post(upstream);
      await new Promise((resolve) => setTimeout(resolve, 80));
      const call = answer.reader!();
      const counted: ChunkReader = {
        read: () => (reads++, call.read()),
        cancel: (reason) => call.cancel(reason),
        readBuffered: () => {
          const taken = call.readBuffered!();
          chunks += taken!.chunks.length;
          return taken;
        },
      };
      const tapped = tapPassthroughUsage(counted, 'anthropic', (u) => usage.push(u));
      // No relay promise is left for an answer that was whole: it is ended at the turn's end,
      // with the turn's other writes (adapters/turn-end.ts), with no read in between.
      relayed = writeNodeReply(new Reply(200, { 'content-type': 'text/event-stream' }, tapped), res, req);
      endedAtOnce = res.writableEnded;
      setImmediate(() => (ended = res.writableEnded));
    });
    const got = await fetch(relay, { method: 'POST' });
    expect(await got.text()).toBe(events.join(''));
    // One body with its length, not chunked framing around the upstream's chunks.
    expect(got.headers.get('content-length')).toBe(String(events.join('').length));
    expect(got.headers.get('transfer-encoding')).toBeNull();
    expect(relayed).toBeUndefined();
    expect(endedAtOnce).toBe(false);
    expect(ended).toBe(true);
    expect(chunks).toBeGreaterThan(1);
    expect(reads).toBe(0);
    expect(writes).toBe(1);
    expect(usage).toEqual([{ inputTokens: 5, outputTokens: 9 }]);
  });
});
