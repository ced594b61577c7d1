import { join } from 'node:path';
import { BENCH_KEY } from './gateway-config.ts';
import { launch, ROOT } from './procs.ts';

export interface WrkResult {
  requests: number;
  duration_us: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latency_us: { p50: number; p90: number; p99: number; p999: number; mean: number; max: number; min: number };
  rps: number;
}

/**
 * One closed-loop wrk run on `cpu`: one thread, `connections` keep-alive connections, HTTP/1.1,
 * the scenario's Lua script (method, body, headers; JSON summary from its done()), or `custom`'s
 * script with its environment (the peer gateway's requests).
 */
export async function runWrk(
  wrk: string, cpu: number, url: string, scenario: string, connections: number, seconds: number,
  custom?: { script: string; env: Record<string, string> },
): Promise<WrkResult> {
  const script = join(ROOT, 'bench', 'wrk', `${custom?.script ?? scenario}.lua`);
  const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--timeout', '10s', '--latency', '-s', script, url];
  const run = launch(cpu, wrk, args, { env: { BENCH_KEY, ...custom?.env }, stdoutPipe: true });
  let stdout = '';
  run.child.stdout?.on('data', (c: Buffer) => (stdout += c));
  // Bounded: a wedged server must not hold the run (wrk's own --timeout covers single requests).
  const watchdog = setTimeout(() => run.child.kill('SIGKILL'), (Math.max(1, Math.round(seconds)) + 20) * 1000);
  const code = await new Promise<number | null>((resolve) => run.child.once('close', (c) => resolve(c)));
  clearTimeout(watchdog);
  const out = stdout || run.stderr();
  const line = /BENCH_RESULT (\{.*\})/.exec(out)?.[1];
  if (code !== 0 || !line) throw new Error(`wrk ${args.join(' ')} failed (exit ${code}):\n${out}${run.stderr()}`);
  const result = JSON.parse(line) as Omit<WrkResult, 'rps'>;
  return { ...result, rps: result.requests / (result.duration_us / 1e6) };
}

export function errorCount(r: WrkResult): number {
  const e = r.errors;
  return e.connect + e.read + e.write + e.status + e.timeout;
}
