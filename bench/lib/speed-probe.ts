import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './procs.ts';
import type { SpeedReading } from './rounds.ts';

const run = promisify(execFile);

/** The probe's time in ms, on `cpu`. */
export async function probeSpeed(cpu: number): Promise<number> {
  const { stdout } = await run('taskset', ['-c', String(cpu), process.execPath, join(ROOT, 'bench', 'lib', 'speed-probe.mjs')], { timeout: 30_000 });
  const ms = Number.parseFloat(stdout);
  if (!(ms > 0)) throw new Error(`speed probe: unexpected output ${JSON.stringify(stdout)}`);
  return ms;
}

/** Probes `cpu` at each call (measure.ts calls it before and after each run) and keeps the fastest reading of the whole bench run. */
export function speedTracker(cpu: number, probe = probeSpeed): () => Promise<SpeedReading> {
  let fastest = Number.POSITIVE_INFINITY;
  return async () => {
    const ms = await probe(cpu);
    fastest = Math.min(fastest, ms);
    return { probe_ms: ms, probe_fastest_ms: fastest };
  };
}
