import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { readChunks, writeNodeReply } from '../../../adapters/node-io.ts';
import { createUndiciFetch, UPSTREAM_AGENT_OPTIONS } from '../../../adapters/node-upstream.ts';
import { RESEND_WINDOW_MS } from '../../../adapters/node-upstream-call.ts';
import { Reply, type UpstreamFetch, type UpstreamResponse } from '../../../core/index.ts';
import { tapSocketWrites } from '../../helpers/socket-writes.ts';

describe('readChunks (a Node Readable as a chunk reader)', () => {
  it('returns buffered chunks at once, waits for later ones, then ends', async () => {
    const source = new PassThrough();
    source.write('a');
    const reader = readChunks(source);
    expect(String((await reader.read()).value)).toBe('a');
    const next = reader.read();
    setTimeout(() => source.end('b'), 5);
    expect(String((await next).value)).toBe('b');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('answers done once the source has its end, before Node emits "end" a tick later', async () => {
    const source = new Readable({ read() {} });
    source.push('last');
    source.push(null);
    const reader = readChunks(source);
    expect(String((await reader.read()).value)).toBe('last');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(source.readableEnded).toBe(false);
  });

  it('rejects a pending read when the source fails', async () => {
    const source = new PassThrough();
    const reader = readChunks(source);
    const pending = reader.read();
    source.destroy(new Error('reset'));
    await expect(pending).rejects.toThrow('reset');
  });

  it('cancel destroys the source without an unhandled error', async () => {
    const source = new PassThrough();
    await readChunks(source).cancel(new Error('client gone'));
    expect(source.destroyed).toBe(true);
  });
});

describe('a streamed reply relayed from undici on node:http', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });

  async function listen(server: Server): Promise<number> {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  // A short upstream answer arrives whole (headers, events and end in one read). Relayed, it must
  // leave in one socket write: headers, the events and the chunked terminator together, not the
  // terminator in a write of its own.
  it('sends the events and the end of an upstream answer that arrived whole in one socket write', async () => {
    const events = 'event: ping\ndata: {"type":"ping"}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';
    const upstream = await listen(createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': Buffer.byteLength(events) }).end(events)));
    let writes = 0;
    const port = await listen(
      createServer(async (req, res) => {
        tapSocketWrites(res, () => writes++);
        const answer = await undiciRequest(`http://127.0.0.1:${upstream}/`);
        await writeNodeReply(new Reply(200, { 'content-type': 'text/event-stream' }, readChunks(answer.body)), res, req);
      }),
    );
    const body = await new Promise<string>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (part: string) => (text += part)).on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(body).toBe(events);
    expect(writes).toBe(1);
  });
});

describe('createUndiciFetch: a whole answer as bytes', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
  }

  const post = (url: string) => createUndiciFetch()(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  it('joins an answer written in pieces, and gives one that came in one piece as it is', async () => {
    const whole = JSON.stringify({ id: 'msg_1', content: [{ type: 'text', text: 'ünï '.repeat(50) }] });
    const bytes = Buffer.from(whole);
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.byteLength });
      res.write(bytes.subarray(0, 40));
      setTimeout(() => res.end(bytes.subarray(40)), 20);
    });
    expect(new TextDecoder().decode(await (await post(url)).bytes!())).toBe(whole);
    const short = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    expect(new TextDecoder().decode(await (await post(short)).bytes!())).toBe('{"ok":true}');
  });

  it('asks for the body uncompressed, whatever accept-encoding it was given, and sends the other headers as they are', async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const url = await serve((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await (await post(url)).bytes!();
    await (await createUndiciFetch()(url, { method: 'POST', headers: { 'Accept-Encoding': 'gzip, br', 'x-api-key': 'k' }, body: '{}' })).bytes!();
    expect(seen.map((h) => h['accept-encoding'])).toEqual(['identity', 'identity']);
    expect(seen[0]!['content-type']).toBe('application/json');
    expect(seen[1]!['x-api-key']).toBe('k');
  });

  // The upstream closes its end as the request comes (a keep-alive timeout that ran out), or
  // resets it (RST), as a Cloudflare-fronted API answers a request on a connection it has dropped.
  it.each([
    { how: 'closes', drop: (socket: Socket) => void socket.end(), failure: { message: 'other side closed' } },
    { how: 'is reset', drop: (socket: Socket) => void socket.resetAndDestroy(), failure: { code: 'ECONNRESET' } },
  ])('sends a request once more when a reused connection $how before any answer, within a second; never on a new connection or later', async ({ drop, failure }) => {
    let seen = 0;
    const onConnection = new WeakMap<object, number>();
    const url = await serve((req, res) => {
      seen++;
      const nth = (onConnection.get(req.socket) ?? 0) + 1;
      onConnection.set(req.socket, nth);
      if (req.url!.includes('fresh') || (nth === 2 && req.url!.includes('stale'))) return drop(req.socket);
      if (nth === 2 && req.url!.includes('slow')) return void setTimeout(() => drop(req.socket), RESEND_WINDOW_MS + 200);
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"n":${seen}}`);
    });
    const text = async (answer: Promise<UpstreamResponse>) => new TextDecoder().decode(await (await answer).bytes!());
    const call = (f: UpstreamFetch, path: string) => f(url.replace('/v1/messages', path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // undici checks an idle connection for a close (a turn of the event loop) before it reuses
    // it, and opens another for a call that comes sooner: the pause lets the first be reused.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    const fetch = createUndiciFetch();
    const first = await text(call(fetch, '/stale'));
    await settle();
    expect([first, await text(call(fetch, '/stale'))]).toEqual(['{"n":1}', '{"n":3}']);
    expect(seen).toBe(3);
    await expect(call(createUndiciFetch(), '/fresh')).rejects.toMatchObject(failure);
    expect(seen).toBe(4);
    const slowFetch = createUndiciFetch();
    await text(call(slowFetch, '/slow'));
    await settle();
    await expect(call(slowFetch, '/slow')).rejects.toMatchObject(failure);
    expect(seen).toBe(6);
  });

  it('rejects when the upstream breaks off mid-answer, and reads a 204 as empty', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{"partial":');
      setTimeout(() => res.destroy(), 20);
    });
    await expect((await post(url)).bytes!()).rejects.toThrow();
    const empty = await serve((_req, res) => res.writeHead(204).end());
    expect((await (await post(empty)).bytes!()).byteLength).toBe(0);
  });
});

describe('createUndiciFetch: a quiet stream', () => {
  // undici cuts a body quiet for 300 s unless its pool says otherwise; waiting that long has no
  // place in a test, and undici's coarse clock runs on a timer made before any fake timer could be.
  it('is never cut by the upstream pool, however long it sits quiet', () => {
    expect(UPSTREAM_AGENT_OPTIONS.bodyTimeout).toBe(0);
  });
});
