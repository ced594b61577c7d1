import type { IRequestStrict } from 'itty-router';
import type { RequestContext } from '../context.ts';
import { GatewayError } from '../errors.ts';
import { Reply, type ReplyHeaders } from './reply.ts';
import { withRequestId } from './respond.ts';

/**
 * Cross-origin access for browser clients: the official SDKs with `dangerouslyAllowBrowser`, web
 * chat apps that take the user's own key. The providers' APIs answer such calls, so a gateway
 * that did not would break those clients on a base-URL switch. Keys travel in headers, never
 * cookies, so no credentialed mode is offered (`access-control-allow-credentials` is never sent).
 */
export interface Cors {
  /** The origin value to answer `origin` with, or undefined when it is not allowed. */
  allow(origin: string): string | undefined;
  /** Answers differ by origin (a list, not `*`): caches must key on it. */
  readonly varies: boolean;
  /** Whether a path is open to browsers: all but the admin API, which is not meant for them. */
  covers(path: string): boolean;
}

/**
 * `origins`: `*` for any, else exact origins (`https://app.example`); none turns CORS off.
 * `basePath`: where the gateway is mounted, which places the admin API.
 */
export function createCors(origins: readonly string[], basePath: string): Cors | undefined {
  if (origins.length === 0) return undefined;
  const admin = `${basePath}/admin/`;
  const covers = (path: string) => !path.startsWith(admin);
  if (origins.includes('*')) return { allow: () => '*', varies: false, covers };
  const allowed = new Set(origins.map((origin) => origin.toLowerCase()));
  return { allow: (origin) => (allowed.has(origin.toLowerCase()) ? origin : undefined), varies: true, covers };
}

/**
 * A preflight (`OPTIONS` with `origin` and `access-control-request-method`) → 204, before any key
 * check (browsers send none on it); undefined for any other `OPTIONS`, which routing then
 * answers 405 as before. An origin not allowed gets a 403 naming it, which the browser's network
 * panel shows. Every header the browser asks for is allowed: the SDKs send their own
 * (`x-stainless-*`, `anthropic-*`, `x-goog-api-*`) and a fixed list would fall behind them;
 * `authorization` must be named, which the echo does (a `*` would not cover it).
 */
export function answerPreflight(cors: Cors, req: IRequestStrict, ctx: RequestContext): Reply | undefined {
  const origin = req.headers.get('origin');
  if (origin === null || req.headers.get('access-control-request-method') === null) return undefined;
  const allowed = cors.allow(origin);
  if (allowed === undefined) throw new GatewayError('permission', `Origin ${origin} is not allowed by the gateway's cors.origins`);
  const headers = withRequestId(ctx, {
    'access-control-allow-origin': allowed,
    'access-control-allow-methods': 'GET, POST',
    'access-control-max-age': '86400',
    vary: cors.varies ? 'origin, access-control-request-headers' : 'access-control-request-headers',
  });
  const requested = req.headers.get('access-control-request-headers');
  if (requested) headers['access-control-allow-headers'] = requested;
  return new Reply(204, headers, null);
}

/**
 * What an answer to a call from `origin` adds, errors included (a browser hides an answer without
 * them, so a 401 would read as a network failure): who may read it, and that every header may be
 * read (the SDKs read `request-id`, `retry-after`, `x-should-retry`; clients `x-switchyard-*`).
 */
export function writeCorsHeaders(cors: Cors, origin: string, headers: ReplyHeaders): void {
  if (headers['access-control-allow-origin'] !== undefined) return; // a preflight's own
  if (cors.varies) headers.vary = headers.vary ? `${headers.vary}, origin` : 'origin';
  const allowed = cors.allow(origin);
  if (allowed === undefined) return;
  headers['access-control-allow-origin'] = allowed;
  headers['access-control-expose-headers'] = '*';
}
