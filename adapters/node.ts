import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import type { Gateway, UpstreamFetch } from '../core/index.ts';
import { readWebStream, writeNodeResponse } from './node-io.ts';
import { NodeRequest } from './node-request.ts';
import { exitOnStartupError, readListenOptions, startGateway } from './startup.ts';

/**
 * Upstream client for Node: undici's dispatcher API over a keep-alive pool, wrapped as a web
 * Response. Node's global fetch runs the full WHATWG fetch machinery per call and measured about
 * five times slower here (performance-notes.md).
 */
export function createNodeFetch(): UpstreamFetch {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  return async (url, init) => {
    const target = new URL(url);
    const { statusCode, headers, body } = await agent.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method: (init.method ?? 'GET') as 'POST',
      headers: init.headers as Record<string, string>,
      body: init.body as string | Uint8Array | null,
      signal: init.signal ?? undefined,
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(headers)) {
      if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    const empty = statusCode === 204 || statusCode === 304 || (statusCode >= 100 && statusCode < 200);
    if (empty) body.resume();
    return new Response(empty ? null : readWebStream(body), { status: statusCode, headers: responseHeaders });
  };
}

/** Serves a gateway (or any web fetch handler) on node:http. */
export function serveNode(gateway: Pick<Gateway, 'fetch'>, options: { port: number; hostname: string }): Promise<Server> {
  const server = createServer((req, res) => {
    // Core reads it exactly as a Request (method, url, headers, body, signal).
    const request = new NodeRequest(req, res) as unknown as Request;
    gateway.fetch(request).then(
      (response) => writeNodeResponse(response, res, req),
      () => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
      },
    );
  });
  // Long SSE streams may sit quiet while a model thinks: no socket or request time-outs.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.hostname, () => resolve(server));
  });
}

async function main(): Promise<void> {
  const gateway = await startGateway({ fetch: createNodeFetch() });
  const listen = readListenOptions();
  const server = await serveNode(gateway, listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  console.error(`switchyard: listening on http://${listen.hostname}:${port} (node ${process.version})`);
  // Stops accepting, lets open requests finish, then writes pending usage records before exiting.
  const stop = () => server.close(() => void gateway.close().finally(() => process.exit(0)));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch(exitOnStartupError);
}
