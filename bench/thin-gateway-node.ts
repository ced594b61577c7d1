/**
 * The Node counterpart of bench/thin-gateway-bun.ts: the least a gateway can do on the
 * Claude-style → Anthropic passthrough and still check the key, resolve and splice the model,
 * cancel the upstream call when the client goes and time out its headers, read the usage, keep a
 * usage record and write an access-log line. node:http and undici's Pool (its dispatch API, as the
 * Node adapter uses it); compiled and started like them (bench/lib/servers.ts).
 *
 * `--config PATH` (the benchmark's gateway configuration) with PORT and HOST;
 * `npm run bench:profile -- --runtime node --thin`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import process from 'node:process';
import { Pool, type Dispatcher } from 'undici';
import { readThinConfig, settleThin, type ThinRoute } from './lib/thin-gateway.ts';

const { keys, routes } = readThinConfig(process.argv, process.env, (path) => readFileSync(path, 'utf8'));
const HEADERS_TIMEOUT_MS = 600_000;
const pools = new Map<string, Pool>();

function poolFor(route: ThinRoute): Pool {
  let pool = pools.get(route.origin);
  if (!pool) pools.set(route.origin, (pool = new Pool(route.origin, { connections: 256, keepAliveTimeout: 30_000, headersTimeout: HEADERS_TIMEOUT_MS })));
  return pool;
}

function error(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }));
}

/**
 * One upstream call, relayed as undici parses it (`Pool.dispatch`, as the Node adapter calls
 * undici since the fifteenth round; `Pool.request` wraps the answer in a Node stream): each chunk
 * is written to the client as it comes, the upstream paused while the client is slow, and the call
 * aborted when the client goes before the answer ends.
 */
class ThinRelay implements Dispatcher.DispatchHandler {
  #id = '';
  #head: Buffer | undefined;
  #tail: Buffer | undefined;
  #status = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly key: string,
    private readonly model: string,
    private readonly started: number,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    const res = this.res;
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new Error('client gone'));
    });
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#id = `req_${(++requests).toString(36)}`;
    this.res.writeHead(statusCode, { 'content-type': String(headers['content-type'] ?? 'application/json'), 'request-id': this.#id });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Usage is read from the first and the last chunk (message_start, message_delta; or the whole JSON).
    if (!this.#head) this.#head = chunk;
    else this.#tail = chunk;
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    this.res.end();
    const seen = (this.#head?.toString('utf8') ?? '') + (this.#tail?.toString('utf8') ?? '');
    settleThin(this.#id, this.key, this.model, this.#status, seen, this.started);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.res.headersSent) this.res.destroy();
    else error(this.res, 502, `upstream could not be reached: ${err.message}`);
  }
}

const server = createServer((req, res) => {
  const started = performance.now();
  if (req.method !== 'POST' || req.url !== '/api/anthropic/v1/messages') return error(res, 404, 'not found');
  const key = keys.get(String(req.headers['x-api-key'] ?? ''));
  if (!key) return error(res, 401, 'Invalid API key');
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    let body: { model?: unknown; stream?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      return error(res, 400, 'Request body is not valid JSON');
    }
    const route = typeof body.model === 'string' ? routes.get(body.model) : undefined;
    if (!route) return error(res, 404, 'model: not found');
    poolFor(route).dispatch(
      {
        method: 'POST',
        path: route.path,
        headers: { 'content-type': 'application/json', 'x-api-key': route.apiKey, 'anthropic-version': String(req.headers['anthropic-version'] ?? '2023-06-01') },
        body: route.splice(text, body.model as string),
      },
      new ThinRelay(res, key, route.model, started),
    );
  });
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
