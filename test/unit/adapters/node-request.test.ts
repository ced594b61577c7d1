import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRequest } from '../../../adapters/node-request.ts';

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
