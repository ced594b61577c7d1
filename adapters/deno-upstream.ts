import type { UpstreamFetch } from '../core/index.ts';
import { createNodeSocketFetch } from './node-sockets.ts';

/**
 * The Deno adapter's upstream client: the Node adapter's sockets client, which runs on Deno's
 * `node:net` and `node:tls` (`onread` included), or Deno's own `fetch` with
 * `SWITCHYARD_UPSTREAM_CLIENT=fetch`. Measured in the same bench rotation (twenty-ninth round):
 * 0.75× / 0.71× / 0.73× of the bare Deno proxy on the JSON / SSE / Gemini SSE passthroughs on the
 * sockets, 0.50× / 0.37× / 0.41× on `fetch`; held streams ~96 KiB each against ~205 (Deno's
 * `fetch` body reader takes 64 KiB per pending read).
 */
export function selectDenoUpstream(env: Record<string, string | undefined>): { fetch: UpstreamFetch | undefined; name: 'sockets' | 'fetch' } {
  if (env.SWITCHYARD_UPSTREAM_CLIENT === 'fetch') return { fetch: undefined, name: 'fetch' };
  return { fetch: createNodeSocketFetch(), name: 'sockets' };
}
