/**
 * A whole Node server's instructions per request under callgrind (`npm run bench:instructions --
 * --server`): the gateway as `npm start` runs it, or the bare proxy, behind the bench's nginx,
 * asked one request at a time over one keep-alive connection by a client outside valgrind.
 * Counters are zeroed after the warm-up and dumped after the counted requests
 * (`callgrind_control`), so one process gives one warm request's cost: adapter, upstream client
 * and node:http included, the kernel's share (about a third of the CPU on the real servers) not.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { readDumpTotal } from './callgrind.ts';
import { launch, stop, waitListening } from './procs.ts';
import { requestInit } from './request.ts';
import type { Scenario } from './scenarios.ts';

export interface ServerCount {
  instructions: number;
  /** callgrind's dump of the counted requests alone. */
  outFile: string;
}

/**
 * `command` runs the server under valgrind (its own HOST and PORT=0 given here); `dir` holds its
 * callgrind files. valgrind names its control channel after the user and HOST, which the server's
 * environment sets, so `callgrind_control` is given the same HOST and an explicit prefix.
 */
export async function countServer(opts: {
  cpu: number;
  command: string[];
  env: Record<string, string>;
  dir: string;
  name: string;
  scenario: Scenario;
  path: string;
  warm: number;
  count: number;
}): Promise<ServerCount> {
  const prefix = join(opts.dir, `${opts.name}-vgdb`);
  const outFile = join(opts.dir, `${opts.name}.out`);
  const env = { PORT: '0', HOST: '127.0.0.1', ...opts.env };
  const server = launch(opts.cpu, 'valgrind', [`--vgdb-prefix=${prefix}`, '--tool=callgrind', `--callgrind-out-file=${outFile}`, ...opts.command], { env, stdoutFile: '/dev/null' });
  try {
    const port = await waitListening(server, `${opts.name} under callgrind`, 300_000);
    const control = (command: string) => {
      const run = spawnSync('callgrind_control', [`--vgdb-prefix=${prefix}`, command, String(server.child.pid)], { encoding: 'utf8', env: { ...process.env, HOST: env.HOST } });
      if (run.status !== 0 || !run.stdout.includes('OK')) throw new Error(`callgrind_control ${command} failed: ${run.stdout}${run.stderr}`);
    };
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1, keepAliveTimeout: 600_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
    const init = requestInit(opts.scenario);
    const ask = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const { statusCode, body } = await pool.request({ path: opts.path, method: init.method as 'POST', headers: init.headers, body: init.body ?? null });
        const text = await body.text();
        if (statusCode !== 200) throw new Error(`${opts.name} ${opts.path}: status ${statusCode}: ${text.slice(0, 300)}`);
      }
    };
    try {
      await ask(opts.warm);
      control('--zero');
      await ask(opts.count);
      control('--dump');
    } finally {
      await pool.close();
    }
    const dump = `${outFile}.1`;
    if (!existsSync(dump)) throw new Error(`${opts.name}: callgrind wrote no dump (${dump})`);
    const instructions = readDumpTotal(readFileSync(dump, 'utf8'));
    if (instructions === undefined) throw new Error(`${opts.name}: no total in ${dump}`);
    return { instructions: instructions / opts.count, outFile: dump };
  } finally {
    await stop(server.child);
  }
}
