import type { Server } from 'bun';
import type { Gateway, Reply, UpstreamFetch } from '../core/index.ts';
import { createBunClientWatch } from './bun-client-watch.ts';
import { writeBunResponse } from './bun-response.ts';
import { createBunFetch } from './bun-upstream.ts';

/** Bun's longest idle limit: how long a keep-alive connection may sit unused between requests. */
export const BUN_IDLE_TIMEOUT_S = 255;

/**
 * Serves a gateway on Bun.serve. Bun's idle limit counts while a handler waits, so a model that
 * takes longer than it to send its first byte (a long non-streamed answer, a large prompt) would
 * get an empty reply, and a stream quiet for as long would be cut: a request in flight has no
 * idle limit (as on Node), and its connection gets the limit back once the answer is written.
 * Core hears the client leave through createBunClientWatch's light signal.
 */
export function serveBun(gateway: Pick<Gateway, 'reply'>, options: { port: number; hostname: string; idleTimeout?: number }): Server<undefined> {
  const idleTimeout = options.idleTimeout ?? BUN_IDLE_TIMEOUT_S;
  const watch = createBunClientWatch();
  return Bun.serve({
    port: options.port,
    hostname: options.hostname,
    idleTimeout,
    fetch: async (request, server) => {
      server.timeout(request, 0);
      const client = watch(request);
      const written = () => {
        client.settle();
        server.timeout(request, idleTimeout);
      };
      let reply: Reply | Response;
      try {
        reply = await gateway.reply(request);
      } catch (err) {
        written();
        throw err;
      }
      return writeBunResponse(reply, written);
    },
  });
}

/**
 * Bun's fetch for upstream calls, without its own socket idle limit (BUN_CONFIG_HTTP_IDLE_TIMEOUT,
 * 300 s by default: a call whose upstream took 610 s to send headers failed after 360 s), which
 * counts the wait for response headers too. That wait is bounded by the provider's `timeoutMs`
 * (core's timer), and a stream may then run as long as it likes.
 */
export const bunUpstreamFetch: UpstreamFetch = (url, init) => fetch(url, Object.assign(init, { timeout: false }));

/**
 * The Bun adapter's upstream client: its own sockets (createBunFetch), unless the environment names
 * an HTTP proxy (`HTTPS_PROXY`, `HTTP_PROXY`), which only Bun's fetch goes through, or
 * `SWITCHYARD_UPSTREAM_CLIENT=fetch` asks for Bun's fetch. The sockets are given no `ca`: they
 * then verify against the store Bun's fetch uses, its bundled roots with NODE_EXTRA_CA_CERTS's
 * certificates and what SSL_CERT_FILE and SSL_CERT_DIR name. Until the thirtieth round they were
 * given that list (`getCACertificates('default')`) when NODE_EXTRA_CA_CERTS was set, which left
 * SSL_CERT_FILE and SSL_CERT_DIR out and cost each new TLS connection the parse of every
 * certificate in it (with this machine's 263: ~1.1–1.8 ms of CPU against ~0.8).
 */
export function selectBunUpstream(env: Record<string, string | undefined>): { fetch: UpstreamFetch; name: 'sockets' | 'fetch'; warning?: string } {
  const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => Boolean(env[name]));
  if (proxied || env.SWITCHYARD_UPSTREAM_CLIENT === 'fetch') {
    // Read by Bun as it starts, so too late to set from here (as BUN_JSC_* options are).
    const warning = env.BUN_CONFIG_MAX_HTTP_REQUESTS ? undefined : FETCH_CAP_WARNING;
    return { fetch: bunUpstreamFetch, name: 'fetch', ...(warning ? { warning } : {}) };
  }
  return { fetch: createBunFetch(), name: 'sockets' };
}

/**
 * Bun's fetch has at most 256 requests in flight (BUN_CONFIG_MAX_HTTP_REQUESTS); a stream holds
 * one for minutes, so the 257th call waits, unanswered, for some stream to end.
 */
export const FETCH_CAP_WARNING =
  "switchyard: Bun's fetch sends at most 256 requests at once, and a stream holds one until it ends; start Bun with BUN_CONFIG_MAX_HTTP_REQUESTS=65535 in its environment to lift that";
