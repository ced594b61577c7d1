/**
 * Baseline for the Node gateway: node:http + undici Pool.request, no logic. Forwards method, path
 * and body to UPSTREAM and streams the answer back. Started like the gateway:
 * compiled to dist/ and run with the `start` script's Node flags (bench/lib/servers.ts), with UPSTREAM, PORT, HOST.
 */
import { createServer } from 'node:http';
import process from 'node:process';
import { pipeline } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';

const upstream = process.env.UPSTREAM ?? 'http://127.0.0.1:8080';
const hostname = process.env.HOST ?? '127.0.0.1';
const pool = new Pool(upstream, { connections: 256, keepAliveTimeout: 30_000 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    pool
      .request({
        method: req.method as Dispatcher.HttpMethod,
        path: req.url ?? '/',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: chunks.length ? Buffer.concat(chunks) : null,
      })
      .then(
        ({ statusCode, headers, body }) => {
          res.writeHead(statusCode, { 'content-type': String(headers['content-type'] ?? 'application/octet-stream') });
          pipeline(body, res, () => {});
        },
        (err: Error) => res.writeHead(502, { 'content-type': 'text/plain' }).end(err.message),
      );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), hostname, () => {
  const { port } = server.address() as { port: number };
  console.error(`bare-proxy: listening on http://${hostname}:${port} (node ${process.version}) -> ${upstream}`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
