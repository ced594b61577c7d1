import { exitOnStartupError, readListenOptions, startGateway } from './startup.ts';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { hostname: string; port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
  version: { deno: string };
};

/** `deno run -A adapters/deno.ts`: Deno.serve around the core handler. */
const gateway = await startGateway().catch(exitOnStartupError);
const { port, hostname } = readListenOptions();
Deno.serve(
  {
    port,
    hostname,
    onListen: (addr) => console.error(`switchyard: listening on http://${addr.hostname}:${addr.port} (deno ${Deno.version.deno})`),
  },
  gateway.fetch,
);
