import process from 'node:process';
import { selectBunUpstream, serveBun } from './bun-serve.ts';
import { writeAccessLogLineNative } from './log-writer.ts';
import { exitOnStartupError, readListenOptions, startGateway } from './startup.ts';

/** `bun run adapters/bun.ts`: Bun.serve around the core handler (serveBun), upstream calls on the adapter's sockets. */
const upstream = selectBunUpstream(process.env);
// Access-log lines from JSON.stringify: on JavaScriptCore the cheaper writer (see writeAccessLogLineNative).
const gateway = await startGateway({ fetch: upstream.fetch, writeLogLine: writeAccessLogLineNative }).catch(exitOnStartupError);
const listen = readListenOptions();
const server = serveBun(gateway, listen);
if (upstream.warning) console.error(upstream.warning);
console.error(`switchyard: listening on http://${listen.hostname}:${server.port} (bun ${Bun.version}, upstream client: ${upstream.name})`);

// Stops accepting, lets open requests finish, then writes pending usage records before exiting.
const stop = async () => {
  await server.stop();
  await gateway.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
