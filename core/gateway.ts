import type { IRequestStrict } from 'itty-router';
import type { Meter } from './accounting/types.ts';
import type { AdminDeps } from './admin/routes.ts';
import { buildRouter, createFamilyOfPath } from './app.ts';
import { createCatalog, type Catalog } from './catalog.ts';
import { readConfig, type GatewayConfig, type GatewayConfigInput } from './config.ts';
import { Context, type AccessLogEntry, type GatewayServices } from './context.ts';
import { dispatch } from './dispatch.ts';
import { GatewayError, toGatewayError } from './errors.ts';
import { ERROR_WRITERS } from './families/family.ts';
import { readClientSignal } from './http/client-signal.ts';
import { createCors, writeCorsHeaders, type Cors } from './http/cors.ts';
import { writeLogTime } from './http/log-time.ts';
import { readPlainPath } from './http/request-url.ts';
import { Reply, replyToResponse, type ReplyHeaders } from './http/reply.ts';
import { jsonReply } from './http/respond.ts';
import { createStaticKeyVerifier, type KeyVerifier } from './keys.ts';
import { isPromise } from './maybe-promise.ts';
import { createUpstreams } from './upstreams/registry.ts';
import type { UpstreamFetch } from './upstreams/types.ts';
import { writeAccessLogLine } from './write-access-log-line.ts';

export interface GatewayOptions {
  /** Upstream HTTP client; defaults to the global fetch. The Node and Bun adapters pass their own sockets client (adapters/http1-client.ts). */
  fetch?: UpstreamFetch;
  /** Access log sink; defaults to one JSON line per request on the console. */
  log?: (entry: AccessLogEntry) => void;
  /** Where unexpected errors go with their cause (clients only ever see a generic message). */
  logError?: (requestId: string, err: unknown) => void;
  /** Key verification; defaults to the configuration's static keys. */
  keys?: KeyVerifier;
  /** Reserve-then-settle limits and usage records (adapters/storage/open-storage.ts builds one). */
  meter?: Meter;
  /** Enables the admin API (`{basePath}/admin/v1`) over these stores. */
  admin?: AdminDeps;
  /** Environment for `${NAME}` interpolation when `config` is a raw document. */
  env?: Record<string, string | undefined>;
}

export interface Gateway {
  /** A web-standard handler: give it a Request, get a Response. */
  fetch(request: Request): Promise<Response>;
  /**
   * The same handler for adapters that write to their socket themselves: the answer as a
   * `Reply` (status, plain header object, body as bytes, text or a chunk reader) where core
   * built one, so no web Response is made only to be taken apart again.
   */
  reply(request: Request): Promise<Reply | Response>;
  readonly config: GatewayConfig;
  readonly catalog: Catalog;
}

/**
 * Creates a gateway from a configuration (validated here; throws ConfigError naming the bad
 * path). The result has no runtime dependencies: mount `gateway.fetch` in any server that
 * speaks Request/Response.
 *
 * @example
 * const gateway = createGateway({ providers: {...}, models: [...], keys: [{ id: 'me', key: 'sk-…' }] });
 * Bun.serve({ fetch: gateway.fetch });
 */
export function createGateway(input: GatewayConfigInput | GatewayConfig, options: GatewayOptions = {}): Gateway {
  const config = readConfig(input, options.env);
  const catalog = createCatalog(config, Math.floor(Date.now() / 1000));
  const keysReady = options.keys ? Promise.resolve(options.keys) : createStaticKeyVerifier(config.keys);
  const services: GatewayServices = {
    config,
    catalog,
    keys: readyVerifier(keysReady),
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    upstreams: createUpstreams(config),
    log: options.log ?? ((entry) => console.log(writeAccessLogLine(entry))),
    logError: options.logError ?? ((id, err) => console.error(JSON.stringify({ id, error: describe(err) }))),
    newId: createIdSource(),
    ...(options.meter && { meter: options.meter }),
    ...(options.admin && { admin: options.admin }),
  };
  const cors = createCors(config.cors.origins, config.basePath);
  if (cors) services.cors = cors;
  const router = buildRouter(services);
  const familyOfPath = createFamilyOfPath(config);

  async function handle(request: Request): Promise<Reply | Response> {
    const started = performance.now();
    const path = readPlainPath(request.url);
    let url: URL | undefined;
    if (path === undefined) {
      try {
        url = new URL(request.url);
      } catch {
        // Only a broken Host header gets here; there is no path to pick a family from.
        const { status, body } = ERROR_WRITERS.openai(new GatewayError('invalid_request', 'Request URL is not valid'));
        return new Reply(status, { 'content-type': 'application/json' }, JSON.stringify(body));
      }
    }
    const pathname = path ?? url!.pathname;
    const ctx = new Context(services, services.newId(), request.url, pathname, familyOfPath(pathname), readClientSignal(request), started, url);
    let response: Reply | Response;
    let failure: string | undefined;
    try {
      // Routes that answer nothing, async, fall through here (see dispatch).
      let answer = dispatch(router.routes, request as unknown as IRequestStrict, ctx);
      while (isPromise(answer)) answer = (await answer) ?? dispatch(router.routes, request as unknown as IRequestStrict, ctx, ctx.nextRoute);
      response = answer as Reply | Response;
    } catch (thrown) {
      const err = toGatewayError(thrown);
      if (err.kind === 'internal') services.logError(ctx.id, thrown);
      failure = err.message;
      const { status, body } = ERROR_WRITERS[ctx.family](err, ctx.id);
      const headers: ReplyHeaders = {};
      if (err.opts.retryAfter !== undefined) headers['retry-after'] = String(err.opts.retryAfter);
      if (err.opts.final) headers['x-should-retry'] = 'false';
      response = jsonReply(ctx, body, status, headers);
    }
    if (request.method === 'HEAD' && response instanceof Reply && response.body !== null) response = new Reply(response.status, response.headers, null);
    if (cors !== undefined) {
      const origin = request.headers.get('origin');
      if (origin !== null && cors.covers(pathname)) response = withCors(cors, origin, response);
    }
    services.log({
      time: writeLogTime(Date.now()),
      id: ctx.id,
      method: request.method,
      path: pathname,
      status: response.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      key: ctx.key?.id,
      model: ctx.model,
      provider: ctx.provider,
      error: failure,
    });
    return response;
  }

  return { fetch: async (request) => replyToResponse(await handle(request)), reply: handle, config, catalog };
}

/** core answers with a Reply; a Response (immutable headers, when it came from fetch) is copied. */
function withCors(cors: Cors, origin: string, response: Reply | Response): Reply | Response {
  if (response instanceof Reply) {
    writeCorsHeaders(cors, origin, response.headers);
    return response;
  }
  const headers: ReplyHeaders = {};
  writeCorsHeaders(cors, origin, headers);
  const copy = new Response(response.body, response);
  for (const name in headers) copy.headers.set(name, headers[name]!);
  return copy;
}

/** Waits for the verifier only until it is built; after that, calls go straight to it. */
function readyVerifier(ready: Promise<KeyVerifier>): KeyVerifier {
  let verifier: KeyVerifier | undefined;
  void ready.then((built) => (verifier = built), () => {});
  return { verify: (presented) => (verifier ? verifier.verify(presented) : ready.then((built) => built.verify(presented))) };
}

function createIdSource(): () => string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  const base = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  let counter = 0;
  return () => `req_${base}${(counter++).toString(36).padStart(6, '0')}`;
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err);
}
