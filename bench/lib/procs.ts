import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, openSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every process group this run started; all of them are ended on exit, Ctrl-C or failure. */
const started = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    // Children run in their own process group (detached), so wrappers take their children along.
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** SIGTERM, then SIGKILL after `graceMs` for whatever is still running. */
export async function stop(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((child) => stop(child)));
}

const exitHooks: Array<() => void> = [];

/** Synchronous work for when this process exits, however it exits (after children are killed). */
export function onExit(hook: () => void): void {
  exitHooks.push(hook);
}

/** Installs the handlers that end every started process however this process ends. */
export function installCleanup(): void {
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\nbench: ${signal}: stopping servers…`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  // Last resort (synchronous): nothing may outlive the run.
  process.once('exit', () => {
    for (const child of started) signalGroup(child, 'SIGKILL');
    for (const hook of exitHooks) hook();
  });
}

export interface Launched {
  child: ChildProcess;
  /** Everything written to stderr so far. */
  stderr(): string;
}

/**
 * Spawns `cmd` pinned to `cpu` with taskset (children inherit the affinity), in its own process
 * group, stdout to `stdoutFile`, a pipe or nowhere, stderr kept and copied to `stderrFile`.
 */
export function launch(cpu: number, cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; stdoutFile?: string; stdoutPipe?: boolean; stderrFile?: string }): Launched {
  const stdout = opts.stdoutFile ? openSync(opts.stdoutFile, 'a') : opts.stdoutPipe ? 'pipe' : 'ignore';
  const child = track(
    spawn('taskset', ['-c', String(cpu), cmd, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', ...opts.env },
      stdio: ['ignore', stdout, 'pipe'],
      detached: true,
    }),
  );
  if (typeof stdout === 'number') closeSync(stdout);
  let text = '';
  const copy = opts.stderrFile ? createWriteStream(opts.stderrFile, { flags: 'a' }) : undefined;
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    if (text.length < 200_000) text += chunk;
    copy?.write(chunk);
  });
  return { child, stderr: () => text };
}

/** Resolves with the port of the first "listening on http://host:port" line on stderr. */
export function waitListening(server: Launched, what: string, timeoutMs = 60_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = /listening on http:\/\/[^\s:]+:(\d+)/.exec(server.stderr());
      if (match) {
        done();
        resolve(Number(match[1]));
      }
    };
    const fail = (why: string) => {
      done();
      reject(new Error(`${what} ${why}:\n${server.stderr().slice(-4000)}`));
    };
    const onExit = () => fail('exited before listening');
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs} ms`), timeoutMs);
    const done = () => {
      clearTimeout(timer);
      server.child.stderr!.off('data', check);
      server.child.off('exit', onExit);
    };
    server.child.stderr!.on('data', check);
    server.child.once('exit', onExit);
    check();
  });
}

/** A port nothing listens on right now (for servers that cannot be told to take port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls until something accepts TCP connections on 127.0.0.1:`port`. */
export async function waitPort(port: number, exited: () => boolean, why: () => string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (exited()) throw new Error(why());
    if (Date.now() > until) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms: ${why()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Pins this process (all its threads) to `cpu`: the orchestrator shares the load generator's core. */
export function pinSelf(cpu: number): void {
  spawnSync('taskset', ['-a', '-pc', String(cpu), String(process.pid)], { stdio: 'ignore' });
}

export function which(cmd: string, fallbacks: string[] = []): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  return fallbacks.find((path) => spawnSync('test', ['-x', path]).status === 0);
}

/**
 * Runs a bench command's `main`: exit 0 when it resolves, its message and exit 1 when it throws
 * (what it started is stopped on exit when it called installCleanup).
 */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
