import { Agent, buildConnector, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { ClientSignal, UpstreamFetch, UpstreamInit, UpstreamResponse } from '../core/index.ts';
import { stampSocketErrors, UpstreamCall } from './node-upstream-call.ts';
import { createNodeSocketFetch } from './node-sockets.ts';
import { readTarget } from './upstream-target.ts';

/**
 * The upstream pool. undici cuts an answer whose body is quiet for 300 s by default; a stream may
 * sit quiet that long while a model thinks, and runs as long as it likes once its headers are in
 * (their wait is bounded per call by the provider's `timeoutMs`), so there is no such limit here.
 * Nor on connections per origin (`null`): a stream holds its connection for minutes, and with a
 * cap the next call waits, unanswered, until some other stream ends.
 */
export const UPSTREAM_AGENT_OPTIONS: Agent.Options = { keepAliveTimeout: 30_000, connections: null, bodyTimeout: 0 };

/**
 * The Node adapter's upstream client: its own sockets (node-sockets.ts), or undici's pool when
 * `SWITCHYARD_UPSTREAM_CLIENT=undici` asks for it, or undici through the proxy the environment
 * names (`HTTPS_PROXY`, `HTTP_PROXY`, with `NO_PROXY`), which the sockets do not go through.
 */
export function selectNodeUpstream(env: Record<string, string | undefined>): { fetch: UpstreamFetch; name: 'sockets' | 'undici' | 'undici via proxy' } {
  const proxy = readProxyEnv(env);
  if (proxy) return { fetch: createUndiciFetch(new EnvHttpProxyAgent(Object.assign({}, UPSTREAM_AGENT_OPTIONS, proxy))), name: 'undici via proxy' };
  if (env.SWITCHYARD_UPSTREAM_CLIENT === 'undici') return { fetch: createUndiciFetch(), name: 'undici' };
  return { fetch: createNodeSocketFetch(), name: 'sockets' };
}

/**
 * The proxies an environment names, read as undici's EnvHttpProxyAgent reads them (lower case
 * first); given to it explicitly, so that the environment passed in is the one that counts.
 * Undefined when it names none.
 */
export function readProxyEnv(env: Record<string, string | undefined>): { httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined {
  const httpProxy = env.http_proxy || env.HTTP_PROXY || undefined;
  const httpsProxy = env.https_proxy || env.HTTPS_PROXY || httpProxy;
  if (!httpProxy && !httpsProxy) return undefined;
  const noProxy = env.no_proxy ?? env.NO_PROXY;
  // Empty strings, not undefined: undici reads process.env for whatever is left undefined.
  return { httpProxy: httpProxy ?? '', httpsProxy: httpsProxy ?? '', noProxy: noProxy ?? '' };
}

/**
 * Upstream client for Node on undici's dispatcher API over a keep-alive pool (the Node adapter's
 * default until the twenty-ninth round). Node's global fetch runs the full WHATWG fetch machinery
 * per call and measured about five times slower here (performance-notes.md), and undici's
 * `request` wraps each answer in a Node stream; here each call is an `UpstreamCall` handler whose
 * answer is a plain object and whose body core reads straight from the chunks undici parses.
 */
export function createUndiciFetch(agent: Dispatcher = createStampedAgent()): UpstreamFetch {
  // Not async: the call's own promise is all the path pays for.
  const fetch = (url: string, init: UpstreamInit): Promise<UpstreamResponse> => {
    const target = readTarget(url);
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const options: Dispatcher.DispatchOptions = {
        origin: target.origin,
        path: target.path,
        method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: writeHeaders(init.headers as Record<string, string> | undefined),
        body: init.body as string | Uint8Array | null,
        // undici's own header timer replaces the AbortController and timer core would add per call
        // (undefined: the pool's default).
        headersTimeout: init.headersTimeoutMs,
      };
      // The adapter's ClientAbort (or any AbortSignal) cancels the call before or after its headers.
      const signal = (init.signal ?? undefined) as ClientSignal | undefined;
      // A body held whole can go again (see UpstreamCall's resend); a stream could not.
      const again = typeof options.body === 'string' || options.body instanceof Uint8Array || options.body === null || options.body === undefined;
      agent.dispatch(options, new UpstreamCall(resolve, reject, signal, again ? { dispatcher: agent, options } : undefined));
    });
  };
  return Object.assign(fetch, { enforcesHeadersTimeout: true });
}

/**
 * undici's own connector (as its pools build it when given none), with each socket's errors
 * stamped with what it had read, so a reset on a reused connection can be told apart.
 */
function createStampedAgent(): Agent {
  return new Agent(Object.assign({}, UPSTREAM_AGENT_OPTIONS, { connect: stampSocketErrors(buildConnector({})) }));
}

/**
 * core's headers, asking for the body as it is: without an accept-encoding a server may compress
 * (RFC 9110 12.5.3), and undici's dispatch neither asks nor decodes, while core reads the body and
 * relays it with its content-encoding dropped. Any accept-encoding core was given (a configured
 * header) gives way to this one, as in the Bun client.
 */
function writeHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) if (name.length !== 15 || name.toLowerCase() !== 'accept-encoding') out[name] = headers[name]!;
  out['accept-encoding'] = 'identity';
  return out;
}
