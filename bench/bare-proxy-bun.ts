/**
 * Baseline for the Bun gateway: Bun.serve + the global fetch, no logic. Forwards method, path and
 * body to UPSTREAM and returns the upstream's answer as it is, headers and all (rebuilding the
 * Response around its body cost ~12% more CPU per request). `bun run bench/bare-proxy-bun.ts` with
 * UPSTREAM, PORT, HOST.
 */
import process from 'node:process';

const upstream = process.env.UPSTREAM ?? 'http://127.0.0.1:8080';
const hostname = process.env.HOST ?? '127.0.0.1';

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname,
  // Same as the gateway's adapter, so quiet streams are not cut.
  idleTimeout: 255,
  async fetch(request) {
    const url = new URL(request.url);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    // fetch's own Response goes back as it is: the runtime pipes its body natively, the least a proxy can do.
    return fetch(upstream + url.pathname + url.search, {
      method: request.method,
      headers: { 'content-type': request.headers.get('content-type') ?? 'application/json' },
      body: hasBody ? await request.arrayBuffer() : undefined,
    });
  },
});
console.error(`bare-proxy: listening on http://${hostname}:${server.port} (bun ${Bun.version}) -> ${upstream}`);
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
