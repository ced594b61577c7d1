/**
 * Baseline for the Deno gateway: Deno.serve + the global fetch, no logic. Forwards method, path
 * and body to UPSTREAM and returns the upstream's answer as it is, headers and all, as the bare
 * Bun proxy does. `deno run -A bench/bare-proxy-deno.ts` with UPSTREAM, PORT, HOST.
 */
export {};

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { hostname: string; port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
  env: { get(name: string): string | undefined };
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void;
  exit(code: number): never;
  version: { deno: string };
};

const upstream = Deno.env.get('UPSTREAM') ?? 'http://127.0.0.1:8080';
const hostname = Deno.env.get('HOST') ?? '127.0.0.1';

const server = Deno.serve(
  {
    port: Number(Deno.env.get('PORT') ?? 0),
    hostname,
    onListen: (addr) => console.error(`bare-proxy: listening on http://${addr.hostname}:${addr.port} (deno ${Deno.version.deno}) -> ${upstream}`),
  },
  async (request) => {
    const url = new URL(request.url);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    // fetch's own Response goes back as it is: the runtime pipes its body natively, the least a proxy can do.
    return fetch(upstream + url.pathname + url.search, {
      method: request.method,
      headers: { 'content-type': request.headers.get('content-type') ?? 'application/json' },
      body: hasBody ? await request.arrayBuffer() : undefined,
    });
  },
);
const stop = () => void server.shutdown().then(() => Deno.exit(0));
Deno.addSignalListener('SIGINT', stop);
Deno.addSignalListener('SIGTERM', stop);
