import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayConfigInput } from '../../core/index.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The runtime binary installed from npm, if any: `bun` through the `bun` package; Deno through its
 * platform package, because the registry here lacks the other platforms' builds that the `deno`
 * wrapper package lists, which makes `npm ci` refuse the lock file.
 */
export function runtimeBin(name: 'bun' | 'deno'): string | undefined {
  const candidates = name === 'bun' ? [join(ROOT, 'node_modules', '.bin', 'bun')] : [join(ROOT, 'node_modules', '@deno', 'linux-x64-glibc', 'deno')];
  return candidates.find((path) => existsSync(path));
}

export interface SpawnedGateway {
  /** Base URL taken from the adapter's "listening on" line. */
  url: string;
  /** Everything the process wrote to stderr so far (start-up messages, errors). */
  stderr(): string;
  /** What it wrote to stdout so far (the access log), when spawned with `{ stdout: true }`. */
  stdout(): string;
  close(): Promise<void>;
}

/**
 * Starts a gateway in another runtime with `config` written to a temporary SWITCHYARD_CONFIG and
 * PORT=0 (the adapters print the port they got), and resolves once it says it is listening.
 * `env` adds to the environment (the benchmark's bare proxies take UPSTREAM); `stdout` keeps what
 * the process writes there (otherwise dropped).
 */
export async function spawnGateway(command: string, args: string[], config: GatewayConfigInput, timeoutMs = 45_000, env: Record<string, string> = {}, options: { stdout?: boolean } = {}): Promise<SpawnedGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-runtime-'));
  const configPath = join(dir, 'switchyard.json');
  // Each runtime also runs its own SQLite driver (bun:sqlite, node:sqlite) under the suite.
  writeFileSync(configPath, JSON.stringify({ storage: { kind: 'sqlite', path: join(dir, 'switchyard.db') }, ...config }));
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SWITCHYARD_CONFIG: configPath, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', ...env },
    // stdout carries one access-log line per request: kept only when asked for.
    stdio: ['ignore', options.stdout ? 'pipe' : 'ignore', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (text: string) => void (stdout += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command} did not start listening within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (text: string) => {
        stderr += text;
        const match = /listening on (http:\/\/[^\s]+)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${command} exited with ${code} before listening:\n${stderr}`));
      });
    });
    return { url, stderr: () => stderr, stdout: () => stdout, close };
  } catch (err) {
    await close();
    throw err;
  }
}
