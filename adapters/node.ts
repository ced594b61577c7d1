import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Gateway } from '../core/index.ts';
import { writeNodeReply } from './node-io.ts';
import { NodeRequest } from './node-request.ts';
import { createNodeSocketFetch } from './node-sockets.ts';
import { selectNodeUpstream } from './node-upstream.ts';
import { exitOnStartupError, readListenOptions, startGateway } from './startup.ts';

/** The Node adapter's upstream client, for an app embedding the gateway on Node (node-sockets.ts). */
export const createNodeFetch = createNodeSocketFetch;

/**
 * Serves a gateway (or any web fetch handler) on node:http. A gateway's `reply` is used when it
 * has one: its answers are written to the socket without becoming web Responses first.
 */
export function serveNode(gateway: Pick<Gateway, 'fetch'> & Partial<Pick<Gateway, 'reply'>>, options: { port: number; hostname: string }): Promise<Server> {
  const handle = gateway.reply ?? gateway.fetch;
  const server = createServer((req, res) => {
    // Core reads it exactly as a Request (method, url, headers, body, signal).
    const request = new NodeRequest(req, res) as unknown as Request;
    handle(request).then(
      // Not returned: adopting the relay's promise would cost this chain two microtasks more.
      (response) => void writeNodeReply(response, res, req),
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
  const upstream = selectNodeUpstream(process.env);
  const gateway = await startGateway({ fetch: upstream.fetch });
  const listen = readListenOptions();
  const server = await serveNode(gateway, listen);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  console.error(`switchyard: listening on http://${listen.hostname}:${port} (node ${process.version}, upstream client: ${upstream.name})`);
  // Stops accepting, lets open requests finish, then writes pending usage records before exiting.
  const stop = () => server.close(() => void gateway.close().finally(() => process.exit(0)));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch(exitOnStartupError);
}
