/**
 * A second baseline, between the bare proxy and Switchyard: the least a gateway can do on the
 * Claude-style → Anthropic passthrough and still check the key, resolve and splice the model,
 * cancel the upstream call when the client goes and time out its headers, read the usage, keep a
 * usage record and write an access-log line, all in one function with nothing configurable. Its
 * upstream calls go through the Bun adapter's own client (adapters/bun-upstream.ts), as
 * Switchyard's do. What
 * Switchyard costs above it is the price of its generality (routing, every family and upstream,
 * storage back-ends, fallbacks, warnings), not of the features the performance targets switch on.
 *
 * `bun run bench/thin-gateway-bun.ts --config PATH` (the benchmark's gateway configuration) with
 * PORT and HOST; `npm run bench:profile -- --runtime bun --thin`.
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { readThinConfig, settleThin } from './lib/thin-gateway.ts';
import { readAhead } from '../adapters/bun-read-ahead.ts';
import { handOverAtTurnEnd } from '../adapters/bun-response.ts';
import { createBunFetch } from '../adapters/bun-upstream.ts';
import { joinBytes } from '../core/http/join-bytes.ts';
import type { UpstreamResponse } from '../core/index.ts';

const { keys, routes } = readThinConfig(process.argv, process.env, (path) => readFileSync(path, 'utf8'));
const HEADERS_TIMEOUT_MS = 600_000;
const decoder = new TextDecoder();
// The Bun adapter's upstream client: it keeps the header time-out and takes the client's signal itself.
const upstream = createBunFetch();
let requests = 0;

function error(status: number, message: string): Response {
  return Response.json({ type: 'error', error: { type: 'invalid_request_error', message } }, { status });
}

async function handle(request: Request): Promise<Response> {
  const started = performance.now();
  if (request.method !== 'POST' || !request.url.endsWith('/api/anthropic/v1/messages')) return error(404, 'not found');
  const key = keys.get(request.headers.get('x-api-key') ?? '');
  if (!key) return error(401, 'Invalid API key');
  const text = await request.text();
  let body: { model?: unknown; stream?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    return error(400, 'Request body is not valid JSON');
  }
  const route = typeof body.model === 'string' ? routes.get(body.model) : undefined;
  if (!route) return error(404, 'model: not found');
  const id = `req_${(++requests).toString(36)}`;

  let res: UpstreamResponse;
  try {
    res = await upstream(route.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': route.apiKey, 'anthropic-version': request.headers.get('anthropic-version') ?? '2023-06-01' },
      body: route.splice(text, body.model as string),
      signal: request.signal,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
    });
  } catch (err) {
    return error(502, `upstream could not be reached: ${(err as Error).message}`);
  }
  const headers = { 'content-type': res.headers.get('content-type') ?? 'application/json', 'request-id': id };
  if (body.stream !== true) {
    const answer = await res.text();
    settleThin(id, key, route.model, res.status, answer, started);
    return handOverAtTurnEnd(new Response(answer, { status: res.status, headers }));
  }
  // Relayed as Switchyard's Bun adapter relays: a whole answer handed over at the turn's end, what
  // is already here read ahead, a stream that ended within it sent as one body (at the turn's end
  // too), any other chunk by chunk through a direct stream; usage is
  // read from the first and the last chunk (message_start, message_delta).
  const reader = res.reader!();
  const ahead = await readAhead(reader);
  if (ahead.done) {
    const { chunks } = ahead;
    const seen = (chunks.length ? decoder.decode(chunks[0]) : '') + (chunks.length > 1 ? decoder.decode(chunks[chunks.length - 1]) : '');
    settleThin(id, key, route.model, res.status, seen, started);
    return handOverAtTurnEnd(new Response(joinBytes(chunks, ahead.size) as BodyInit, { status: res.status, headers }));
  }
  let head: Uint8Array | undefined;
  let tail: Uint8Array | undefined;
  const see = (value: Uint8Array) => {
    if (!head) head = value;
    else tail = value;
  };
  const stream = new ReadableStream({
    type: 'direct',
    async pull(out: { write(chunk: Uint8Array): void; flush(): void; close(): void }) {
      for (const chunk of ahead.chunks) {
        see(chunk);
        out.write(chunk);
      }
      let next = ahead.done ? undefined : (ahead.next ?? reader.read());
      while (next) {
        const { done, value } = await next;
        if (done) break;
        see(value);
        out.write(value);
        out.flush();
        next = reader.read();
      }
      out.close();
      const seen = (head ? decoder.decode(head) : '') + (tail ? decoder.decode(tail) : '');
      settleThin(id, key, route.model, res.status, seen, started);
    },
    cancel: (reason: unknown) => reader.cancel(reason),
  } as unknown as UnderlyingDefaultSource<Uint8Array>);
  return new Response(stream, { status: res.status, headers });
}

const hostname = process.env.HOST ?? '127.0.0.1';
const server = Bun.serve({ port: Number(process.env.PORT ?? 0), hostname, idleTimeout: 255, fetch: handle });
console.error(`thin-gateway: listening on http://${hostname}:${server.port} (bun ${Bun.version})`);
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
