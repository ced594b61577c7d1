import process from 'node:process';
import { writeBunResponse } from './bun-response.ts';
import { exitOnStartupError, readListenOptions, startGateway } from './startup.ts';

/** `bun run adapters/bun.ts`: Bun.serve around the core handler (its replies written by writeBunResponse); Bun's own fetch goes upstream. */
const gateway = await startGateway().catch(exitOnStartupError);
const { port, hostname } = readListenOptions();
const server = Bun.serve({
  port,
  hostname,
  // Bun closes connections idle for 10 s by default, which cuts a stream while a model thinks.
  idleTimeout: 255,
  fetch: async (request) => writeBunResponse(await gateway.reply(request)),
});
console.error(`switchyard: listening on http://${hostname}:${server.port} (bun ${Bun.version})`);

// Stops accepting, lets open requests finish, then writes pending usage records before exiting.
const stop = async () => {
  await server.stop();
  await gateway.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
