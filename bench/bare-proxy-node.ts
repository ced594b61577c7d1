/**
 * Baseline for the Node gateway: node:http + undici Pool.request, no logic. Forwards method, path
 * and body to UPSTREAM and relays the answer back chunk by chunk as it arrives ('data' events and
 * `res.write`, pausing the upstream while the client is slow). Not `stream.pipeline`: its
 * end-of-stream and destroy bookkeeping more than doubled this proxy's CPU per request (141 against
 * 61 µs on a streamed answer, tenth round), which made every Node ratio look better than it was.
 * Started like the gateway: compiled to dist/ and run with the `start` script's Node flags
 * (bench/lib/servers.ts), with UPSTREAM, PORT, HOST.
 */
import { createServer } from 'node:http';
import process from 'node:process';
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
          body.on('data', (chunk: Buffer) => {
            if (!res.write(chunk)) {
              body.pause();
              res.once('drain', () => body.resume());
            }
          });
          body.on('end', () => res.end());
          body.on('error', () => res.destroy());
          res.once('close', () => {
            if (!res.writableFinished) body.destroy();
          });
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
