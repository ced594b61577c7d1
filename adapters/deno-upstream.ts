import type { UpstreamFetch } from '../core/index.ts';
import { readDenoDefaultCa } from './deno-default-ca.ts';
import { createNodeSocketFetch } from './node-sockets.ts';

/**
 * What Deno's `fetch` follows and its `node:tls`, under the sockets client, does not (Deno 2.9.6,
 * tested): an HTTP proxy, and certificate authorities added with DENO_CERT or swapped in with
 * DENO_TLS_CA_STORE.
 */
const FETCH_ONLY_SETTINGS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'DENO_CERT', 'DENO_TLS_CA_STORE'];

/**
 * The Deno adapter's upstream client: the Node adapter's sockets client, which runs on Deno's
 * `node:net` and `node:tls` (`onread` included), or Deno's own `fetch` with
 * `SWITCHYARD_UPSTREAM_CLIENT=fetch` and wherever the environment names a setting only `fetch`
 * follows (FETCH_ONLY_SETTINGS): on the sockets, calls would go around the proxy, or trust less.
 * Deno's `node:tls` lists NODE_EXTRA_CA_CERTS's certificates among its defaults but does not
 * trust them when it connects, so with that variable set the sockets are given the list (`readCa`).
 * Measured in the same bench rotation (twenty-ninth round): 0.75× / 0.71× / 0.73× of the bare Deno
 * proxy on the JSON / SSE / Gemini SSE passthroughs on the sockets, 0.50× / 0.37× / 0.41× on
 * `fetch`; held streams ~96 KiB each against ~205 (Deno's `fetch` body reader takes 64 KiB per
 * pending read).
 */
export function selectDenoUpstream(env: Record<string, string | undefined>, readCa: () => string[] | undefined = readDenoDefaultCa): { fetch: UpstreamFetch | undefined; name: 'sockets' | 'fetch' } {
  const fetch = { fetch: undefined, name: 'fetch' } as const;
  if (env.SWITCHYARD_UPSTREAM_CLIENT === 'fetch' || FETCH_ONLY_SETTINGS.some((name) => Boolean(env[name]))) return fetch;
  if (!env.NODE_EXTRA_CA_CERTS) return { fetch: createNodeSocketFetch(), name: 'sockets' };
  // A Deno that cannot list what its fetch trusts keeps its fetch rather than trust less (an
  // empty list, as `ca`, would trust nothing at all).
  const ca = readCa();
  return ca?.length ? { fetch: createNodeSocketFetch({ ca }), name: 'sockets' } : fetch;
}
