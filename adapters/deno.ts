import process from 'node:process';
import { selectDenoUpstream } from './deno-upstream.ts';
import { exitOnStartupError, readListenOptions, startGateway } from './startup.ts';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { hostname: string; port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
  version: { deno: string };
};

/** `deno run -A adapters/deno.ts`: Deno.serve around the core handler; upstream calls on the sockets client (deno-upstream.ts). */
const upstream = selectDenoUpstream(process.env);
const gateway = await startGateway({ fetch: upstream.fetch }).catch(exitOnStartupError);
const { port, hostname } = readListenOptions();
const server = Deno.serve(
  {
    port,
    hostname,
    onListen: (addr) => console.error(`switchyard: listening on http://${addr.hostname}:${addr.port} (deno ${Deno.version.deno}, upstream client: ${upstream.name})`),
  },
  gateway.fetch,
);

// Stops accepting, lets open requests finish, then writes pending usage records before exiting.
const stop = async () => {
  await server.shutdown();
  await gateway.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
