import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { listeningPid } from './proc-stats.ts';
import { launch, ROOT, stop, waitListening, which } from './procs.ts';

export type Runtime = 'node' | 'bun' | 'deno';
export const RUNTIMES: Runtime[] = ['node', 'bun', 'deno'];

/**
 * The runtime's binary: this Node; Bun and Deno from the repo's devDependencies (Deno comes as its
 * platform package, `@deno/linux-x64-glibc`, when the `deno` wrapper is not installed), else PATH.
 */
export function runtimeBin(runtime: Runtime): string | undefined {
  if (runtime === 'node') return process.execPath;
  const candidates = [join(ROOT, 'node_modules', '.bin', runtime)];
  if (runtime === 'deno') candidates.push(join(ROOT, 'node_modules', '@deno', 'linux-x64-glibc', 'deno'));
  return candidates.find((path) => existsSync(path)) ?? which(runtime);
}

/**
 * How each runtime starts a TypeScript entry point, exactly as the gateway is run in production:
 * Bun and Deno run the source; Node runs it compiled as `npm start` does (`npm run build`'s
 * esbuild options, into dist/) with the Node flags of the `start` script, so the bare proxy gets
 * the same treatment as the gateway.
 */
export function runtimeCommand(runtime: Runtime, entry: string, args: string[], nodeFlags: readonly string[] = []): [string, string[]] {
  const bin = runtimeBin(runtime);
  if (!bin) throw new Error(`${runtime} is not installed (looked in node_modules and PATH; run npm install)`);
  // Extra flags after npm start's: V8 takes the last value of a flag given twice.
  if (runtime === 'node') return [bin, [...NODE_START.flags, ...nodeFlags, entry.endsWith('.mjs') ? entry : buildForNode(entry), ...args]];
  if (runtime === 'bun') return [bin, ['run', entry, ...args]];
  return [bin, ['run', '-A', entry, ...args]];
}

const NODE_START = readNodeStart();

/** The V8 flags `npm start` runs the gateway with. */
export const nodeStartFlags = (): readonly string[] => NODE_START.flags;

function readNodeStart(): { flags: string[]; build: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const start = scripts.start?.split(' ') ?? [];
  const build = scripts.build?.split(' ') ?? [];
  if (start[0] !== 'node' || build[0] !== 'esbuild') throw new Error('package.json: expected "start": "node … dist/node.mjs" and "build": "esbuild …"');
  return { flags: start.slice(1, -1), build: build.slice(2).filter((arg) => !arg.startsWith('--outfile=')) };
}

/** What a runtime's binary says its version is (`bun --version`: "1.4.5"). */
export function readBinVersion(bin: string): string {
  return spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** Another checkout run from source (Bun, Deno) resolves its packages from this repo's node_modules, linked in when it has none. */
export function linkNodeModules(tree: string): void {
  if (!existsSync(join(tree, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
}

/** Compiles `entry` with the build script's options to dist/<name>.mjs and returns that path. */
export function buildForNode(entry: string, name = basename(entry).replace(/\.ts$/, '')): string {
  const out = join('dist', `${name}.mjs`);
  const built = spawnSync(join(ROOT, 'node_modules', '.bin', 'esbuild'), [entry, ...NODE_START.build, `--outfile=${out}`], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`esbuild ${entry} failed:\n${built.stderr}`);
  return out;
}

/**
 * Another checkout's Node adapter, bundled into this repo's dist/ as dist/<name>.mjs (packages stay
 * external and resolve from here); a path `runtimeCommand('node', …)` runs as it is.
 */
export function buildTreeForNode(tree: string, name: string): string {
  return buildForNode(join(tree, 'adapters', 'node.ts'), name);
}

export interface Server {
  name: string;
  port: number;
  /** The process that holds the listening socket (what CPU and memory are read from). */
  pid: number;
  stderr(): string;
  /** Throws, with how it ended and its last stderr lines, when the server is no longer running. */
  assertAlive(during: string): void;
  stop(): Promise<void>;
}

export async function startServer(opts: {
  name: string;
  runtime: Runtime;
  entry: string;
  args?: string[];
  cpu: number;
  env: Record<string, string>;
  stdoutFile?: string;
  stderrFile?: string;
}): Promise<Server> {
  const [cmd, args] = runtimeCommand(opts.runtime, opts.entry, opts.args ?? []);
  const launched = launch(opts.cpu, cmd, args, {
    env: { PORT: '0', HOST: '127.0.0.1', ...opts.env },
    ...(opts.stdoutFile && { stdoutFile: opts.stdoutFile }),
    ...(opts.stderrFile && { stderrFile: opts.stderrFile }),
  });
  const port = await waitListening(launched, `${opts.name} (${cmd} ${args.join(' ')})`);
  const pid = listeningPid(launched.child.pid!, port);
  let ended: string | undefined;
  let stopping = false;
  launched.child.once('exit', (code, signal) => (ended = signal ? `signal ${signal}` : `exit code ${code}`));
  return {
    name: opts.name,
    port,
    pid,
    stderr: launched.stderr,
    assertAlive(during) {
      if (ended === undefined || stopping) return;
      throw new Error(`${opts.name} ended (${ended}) during ${during}; its stderr ends with:\n${launched.stderr().slice(-3000)}`);
    },
    stop: () => {
      stopping = true;
      return stop(launched.child);
    },
  };
}
