import type { Meter } from './accounting/types.ts';
import type { AdminDeps } from './admin/routes.ts';
import type { Catalog } from './catalog.ts';
import type { GatewayConfig } from './config.ts';
import type { Family } from './families/family.ts';
import type { ClientSignal } from './http/client-signal.ts';
import type { Cors } from './http/cors.ts';
import { readPlainQueryValue, readQueryText } from './http/request-url.ts';
import type { KeyRecord, KeyVerifier } from './keys.ts';
import type { Upstream, UpstreamFetch } from './upstreams/types.ts';

/** One line per request; never carries the key itself, only its id. */
export interface AccessLogEntry {
  time: string;
  id: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  key?: string;
  model?: string;
  provider?: string;
  error?: string;
}

/** Everything built once at start-up and shared by all requests. */
export interface GatewayServices {
  config: GatewayConfig;
  catalog: Catalog;
  keys: KeyVerifier;
  fetch: UpstreamFetch;
  /** One Upstream per configured provider name. */
  upstreams: ReadonlyMap<string, Upstream>;
  log: (entry: AccessLogEntry) => void;
  /** Unexpected errors (500s), with the cause the client never sees. */
  logError: (requestId: string, err: unknown) => void;
  newId: () => string;
  /** Limits and usage accounting; absent when running on static keys only. */
  meter?: Meter;
  /** The admin API's stores and credential; absent means no admin routes. */
  admin?: AdminDeps;
  /** Cross-origin access for browser clients; absent when `cors.origins` is empty. */
  cors?: Cors;
}

/** Per-request state handed to every route handler as itty's extra argument. */
export interface RequestContext {
  readonly services: GatewayServices;
  readonly id: string;
  /** The request URL, parsed when first read. */
  readonly url: URL;
  /** Its path, as `url.pathname` would give it (what routing reads). */
  readonly path: string;
  /** Its query, as `url.searchParams` would give it, without parsing the rest of the URL. */
  readonly query: URLSearchParams;
  /** One query parameter, as `query.get(name)` gives it, read from the text where that is plain. */
  queryValue(name: string): string | null;
  readonly family: Family;
  /** The caller's abort signal: passed to every upstream call so a disconnect cancels it. */
  readonly signal: ClientSignal;
  /** performance.now() when the request arrived. */
  readonly started: number;
  key?: KeyRecord;
  model?: string;
  provider?: string;
  /** Where routing goes on when an async handler's answer turns out to be nothing (see dispatch). */
  nextRoute?: number;
}

/**
 * A request's context. Its URL is parsed only when a handler reads it, and its query alone when
 * that is read: routing needs only the path, which `readPlainPath` takes from the URL text when
 * parsing would give the same. A class with prototype getters, so the object keeps fast
 * properties (see Stage in http/stage.ts).
 */
export class Context implements RequestContext {
  key?: KeyRecord;
  model?: string;
  provider?: string;
  nextRoute = 0;
  #url: URL | undefined;
  #query: URLSearchParams | undefined;

  constructor(
    readonly services: GatewayServices,
    readonly id: string,
    private readonly href: string,
    readonly path: string,
    readonly family: Family,
    readonly signal: ClientSignal,
    readonly started: number,
    url: URL | undefined,
  ) {
    this.#url = url;
  }

  get url(): URL {
    return (this.#url ??= new URL(this.href));
  }

  get query(): URLSearchParams {
    if (this.#query) return this.#query;
    if (this.#url) return (this.#query = this.#url.searchParams);
    const text = readQueryText(this.href);
    return (this.#query = text === undefined ? this.url.searchParams : new URLSearchParams(text));
  }

  queryValue(name: string): string | null {
    if (this.#query || this.#url) return this.query.get(name);
    const text = readQueryText(this.href);
    const value = text === undefined ? undefined : readPlainQueryValue(text, name);
    return value === undefined ? this.query.get(name) : value;
  }
}
