import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProxyEnv, selectNodeUpstream } from '../../../adapters/node-upstream.ts';

/** A forward proxy that tunnels CONNECT requests (what undici's ProxyAgent sends) and counts them. */
function startTunnelProxy(): Promise<{ url: string; tunnels: string[]; server: Server }> {
  const tunnels: string[] = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push(req.url!);
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels, server })));
}

describe('the Node adapter behind an HTTP proxy from the environment', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let proxy: Awaited<ReturnType<typeof startTunnelProxy>>;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => res.setHeader('content-type', 'application/json').end(JSON.stringify({ path: req.url, body })));
    });
    await new Promise<void>((listening) => upstream.listen(0, '127.0.0.1', listening));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1/messages`;
    proxy = await startTunnelProxy();
  });

  afterAll(() => {
    upstream.closeAllConnections();
    upstream.close();
    proxy.server.closeAllConnections();
    proxy.server.close();
  });

  const call = (env: Record<string, string>) => {
    const selected = selectNodeUpstream(env);
    return selected.fetch(upstreamUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hi":1}', headersTimeoutMs: 5000 }).then(async (answer) => ({ name: selected.name, status: answer.status, json: await answer.json() }));
  };

  it('calls through the proxy HTTP_PROXY or HTTPS_PROXY names, with undici (the sockets do not go through one)', async () => {
    const before = proxy.tunnels.length;
    expect(await call({ HTTP_PROXY: proxy.url })).toEqual({ name: 'undici via proxy', status: 200, json: { path: '/v1/messages', body: '{"hi":1}' } });
    expect(await call({ http_proxy: proxy.url, SWITCHYARD_UPSTREAM_CLIENT: 'undici' })).toMatchObject({ name: 'undici via proxy', status: 200 });
    expect(proxy.tunnels.slice(before)).toEqual([new URL(upstreamUrl).host, new URL(upstreamUrl).host]);
  });

  it('goes straight to hosts NO_PROXY names, and to all without a proxy', async () => {
    const before = proxy.tunnels.length;
    expect(await call({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' })).toMatchObject({ name: 'undici via proxy', status: 200 });
    expect(await call({})).toMatchObject({ name: 'sockets', status: 200 });
    expect(proxy.tunnels.length).toBe(before);
  });

  it('reads the environment as undici does: lower case first, HTTPS_PROXY falling back to HTTP_PROXY', () => {
    expect(readProxyEnv({})).toBeUndefined();
    expect(readProxyEnv({ HTTP_PROXY: '' })).toBeUndefined();
    expect(readProxyEnv({ HTTP_PROXY: 'http://a:1' })).toEqual({ httpProxy: 'http://a:1', httpsProxy: 'http://a:1', noProxy: '' });
    expect(readProxyEnv({ https_proxy: 'http://b:2', HTTPS_PROXY: 'http://c:3', NO_PROXY: 'x.test' })).toEqual({ httpProxy: '', httpsProxy: 'http://b:2', noProxy: 'x.test' });
  });
});
