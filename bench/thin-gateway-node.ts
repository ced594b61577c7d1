/**
 * The Node counterpart of bench/thin-gateway-bun.ts: the least a gateway can do on the
 * Claude-style → Anthropic passthrough and still check the key, resolve and splice the model,
 * cancel the upstream call when the client goes and time out its headers, read the usage, keep a
 * usage record and write an access-log line. node:http and the Node adapter's own upstream client
 * (adapters/node-sockets.ts, undici's pool until the twenty-ninth round); compiled and started like
 * them (bench/lib/servers.ts).
 *
 * `--config PATH` (the benchmark's gateway configuration) with PORT and HOST;
 * `npm run bench:profile -- --runtime node --thin`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import process from 'node:process';
import { drained } from '../adapters/node-io.ts';
import { readNodeBody } from '../adapters/node-request.ts';
import { createNodeSocketFetch } from '../adapters/node-sockets.ts';
import { ClientAbort } from '../core/http/client-signal.ts';
import type { UpstreamResponse } from '../core/index.ts';
import { readThinConfig, settleThin, type ThinRoute } from './lib/thin-gateway.ts';

const { keys, routes } = readThinConfig(process.argv, process.env, (path) => readFileSync(path, 'utf8'));
const HEADERS_TIMEOUT_MS = 600_000;
const decoder = new TextDecoder();
// The Node adapter's upstream client: it keeps the header time-out and takes the client's signal itself.
const upstream = createNodeSocketFetch();

function error(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }));
}

/**
 * One upstream call, relayed as it is read: each chunk is written to the client as it comes, the
 * upstream paused while the client is slow, and the call dropped when the client goes before the
 * answer ends. Usage is read from the first and the last chunk (message_start, message_delta; or
 * the whole JSON).
 */
async function relay(res: ServerResponse, key: string, route: ThinRoute, body: string, anthropicVersion: string, started: number): Promise<void> {
  const client = new ClientAbort();
  res.once('close', () => {
    if (!res.writableFinished) client.abort();
  });
  let answer: UpstreamResponse;
  try {
    answer = await upstream(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': route.apiKey, 'anthropic-version': anthropicVersion },
      body,
      // The client's signal as it is: the upstream client takes a ClientSignal (UpstreamFetch).
      signal: client as unknown as AbortSignal,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
    });
  } catch (err) {
    return error(res, 502, `upstream could not be reached: ${(err as Error).message}`);
  }
  const id = `req_${(++requests).toString(36)}`;
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'request-id': id });
  const reader = answer.reader!();
  let head: Uint8Array | undefined;
  let tail: Uint8Array | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!head) head = value;
      else tail = value;
      if (!res.write(value)) {
        // The client leaving ends the wait too (the call is already aborted then).
        await drained(res);
        if (res.destroyed) return;
      }
    }
  } catch {
    res.destroy();
    return;
  }
  res.end();
  const seen = (head ? Buffer.from(head).toString('utf8') : '') + (tail ? Buffer.from(tail).toString('utf8') : '');
  settleThin(id, key, route.model, answer.status, seen, started);
}

const server = createServer((req, res) => {
  const started = performance.now();
  if (req.method !== 'POST' || req.url !== '/api/anthropic/v1/messages') return error(res, 404, 'not found');
  const key = keys.get(String(req.headers['x-api-key'] ?? ''));
  if (!key) return error(res, 401, 'Invalid API key');
  // The Node adapter's body read: whole when it came with the head (adapters/node-request.ts).
  void readNodeBody(req).then((bytes) => {
    const text = decoder.decode(bytes);
    let body: { model?: unknown; stream?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      return error(res, 400, 'Request body is not valid JSON');
    }
    const route = typeof body.model === 'string' ? routes.get(body.model) : undefined;
    if (!route) return error(res, 404, 'model: not found');
    void relay(res, key, route, route.splice(text, body.model as string), String(req.headers['anthropic-version'] ?? '2023-06-01'), started);
  }, () => res.destroy());
});
let requests = 0;
server.keepAliveTimeout = 65_000;
const hostname = process.env.HOST ?? '127.0.0.1';
server.listen(Number(process.env.PORT ?? 0), hostname, () => {
  const { port } = server.address() as { port: number };
  console.error(`thin-gateway: listening on http://${hostname}:${port} (node ${process.version})`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
