import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRequest } from '../../../adapters/node-request.ts';
import { CLIENT_SIGNAL, type ClientSignal } from '../../../core/http/client-signal.ts';

let server: Server;
let port = 0;
let seen: (request: NodeRequest) => unknown = () => undefined;
let result: unknown;

beforeAll(async () => {
  server = createServer((req, res) => {
    result = seen(new NodeRequest(req, res));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends raw header pairs exactly as given (names' case and repeats kept) and returns what `read` made of the request. */
function send(headers: Array<[string, string]>, read: (request: NodeRequest) => unknown): Promise<unknown> {
  seen = read;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}Connection: close\r\n\r\n`);
    });
    socket.on('error', reject);
    socket.resume();
    socket.on('close', () => resolve(result));
  });
}

describe('NodeRequest headers', () => {
  const raw: Array<[string, string]> = [['X-Api-Key', 'sk-1'], ['X-Dup', 'a'], ['x-dup', 'b'], ['Anthropic-Beta', 'one,two']];

  it('answers get() like Headers: any case, repeated names joined with ", ", null when absent', async () => {
    const got = await send(raw, (r) => [r.headers.get('x-api-key'), r.headers.get('X-API-KEY'), r.headers.get('x-dup'), r.headers.get('anthropic-beta'), r.headers.get('authorization'), r.headers.has('x-dup')]);
    expect(got).toEqual(['sk-1', 'sk-1', 'a, b', 'one,two', null, true]);
  });

  it('iterates exactly as a Headers built from the same request would', async () => {
    const got = (await send(raw, (r) => {
      const expected = new Headers();
      for (const [name, value] of raw) expected.append(name, value);
      return [[...r.headers], [...expected].filter(([name]) => name !== 'host' && name !== 'connection')];
    })) as [Array<[string, string]>, Array<[string, string]>];
    expect(got[0].filter(([name]) => name !== 'host' && name !== 'connection')).toEqual(got[1]);
  });

  it('toRequest() gives a real Request with the same headers', async () => {
    const got = await send(raw, (r) => r.toRequest().headers.get('x-dup'));
    expect(got).toBe('a, b');
  });
});

describe('NodeRequest signals', () => {
  /** Serves one request whose client leaves before any answer; `watch` reads one signal first, `after` the other once it aborted. */
  function disconnect(watch: (request: NodeRequest) => ClientSignal, after: (request: NodeRequest) => ClientSignal): Promise<[boolean, boolean, boolean]> {
    return new Promise((resolve) => {
      const holder = createServer((req, res) => {
        const request = new NodeRequest(req, res);
        const first = watch(request);
        const before = first.aborted;
        first.addEventListener('abort', () => resolve([before, first.aborted, after(request).aborted]));
        holder.close();
      });
      holder.listen(0, '127.0.0.1', () => {
        const socket = connect((holder.address() as { port: number }).port, '127.0.0.1', () => {
          socket.write('GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
          setTimeout(() => socket.destroy(), 50);
        });
      });
    });
  }

  it('a client that leaves aborts the light signal core reads; the real AbortSignal, made afterwards, is aborted too', async () => {
    expect(await disconnect((r) => r[CLIENT_SIGNAL], (r) => r.signal)).toEqual([false, true, true]);
  });

  it('and the other way round', async () => {
    const got = await disconnect((r) => r.signal, (r) => r[CLIENT_SIGNAL]);
    expect(got).toEqual([false, true, true]);
  });

  it('signal is a real AbortSignal (handlers pass it on to web APIs)', async () => {
    expect(await send([], (r) => r.signal instanceof AbortSignal)).toBe(true);
  });
});

describe('NodeRequest body', () => {
  /** Serves one request; `parts` are written to the socket in turn, 30 ms apart; resolves with what bytes() gave and how. */
  function upload(parts: string[]): Promise<{ body?: string; streamed?: boolean; error?: { status?: number } }> {
    return new Promise((resolve) => {
      const holder = createServer((req, res) => {
        new NodeRequest(req, res).bytes().then(
          (bytes) => {
            // A 'data' listener means the body was read as it came, not taken whole.
            resolve({ body: Buffer.from(bytes).toString('utf8'), streamed: req.listenerCount('data') > 0 });
            res.end();
          },
          (error: { status?: number }) => resolve({ error: { status: error.status } }),
        );
        holder.close();
      });
      holder.listen(0, '127.0.0.1', () => {
        const socket = connect((holder.address() as { port: number }).port, '127.0.0.1', async () => {
          for (const [i, part] of parts.entries()) {
            if (i > 0) await new Promise((wait) => setTimeout(wait, 30));
            if (part === '<close>') socket.destroy();
            else socket.write(part);
          }
        });
        socket.on('error', () => {});
        socket.resume();
      });
    });
  }

  const head = (length: number) => `POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('takes a body that came with the headers whole, without reading it as a stream', async () => {
    const body = '{"model":"m","messages":[]}';
    expect(await upload([head(body.length) + body])).toEqual({ body, streamed: false });
  });

  it('joins a chunked body that came whole in one read', async () => {
    const chunked = 'POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n5\r\n":1}\n\r\n0\r\n\r\n';
    expect((await upload([chunked])).body).toBe('{"a":1}\n');
  });

  it('waits for a body that comes after the headers, in pieces', async () => {
    const got = await upload([head(11), '{"a":', '"bcd"}']);
    expect(got).toEqual({ body: '{"a":"bcd"}', streamed: true });
  });

  it('reads an empty body as empty', async () => {
    expect((await upload([head(0)])).body).toBe('');
  });

  it('refuses with a 499 when the client leaves mid-body', async () => {
    expect((await upload([head(100), '{"a":', '<close>'])).error).toEqual({ status: 499 });
  });
});
