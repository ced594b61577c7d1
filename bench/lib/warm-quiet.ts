import { compilerMicros, cpuMicros, threadCpu } from './proc-stats.ts';
import type { Runtime } from './servers.ts';

/**
 * A target's warm-up goes on, a second at a time, until its JIT compiler threads took less than
 * this share of its CPU over one second. A fixed second was not enough for Bun's translated
 * streams: its compiler threads ran for ~14 s on the Gemini → Anthropic stream, and that row's
 * 64-connection rounds read 176, 109 and 199 µs per request while the passthrough in the same
 * rotation held 73–77 (docs/performance-rounds.md, forty-second round).
 */
export const QUIET_COMPILER_SHARE = 0.03;

/** Most seconds of warm-up added after the fixed one, so a run stays bounded in time. */
export const MAX_QUIET_SECONDS = 12;

/**
 * Runtimes whose compiler threads can be told from the collector's: Bun's `JITWorker` threads
 * only compile, and Node under `npm start`'s `--single-threaded-gc` (the bare proxy too) leaves
 * its platform workers only compile jobs. Deno runs without that flag, so its `V8 DefaultWorker`
 * threads also do the collector's work and their CPU cannot say when compiling is over; Deno keeps
 * the fixed warm-up (not measured with the quiet rule).
 */
export const QUIET_RUNTIMES: readonly Runtime[] = ['bun', 'node'];

/** What one second of load cost the server: its compiler threads and the whole process, in µs. */
export interface WarmWindow {
  compilerMicros: number;
  processMicros: number;
}

/** A thread that ended within the window makes the compiler's count go down: it was idle, so quiet. */
export function isQuiet(window: WarmWindow): boolean {
  return Math.max(0, window.compilerMicros) < QUIET_COMPILER_SHARE * window.processMicros;
}

/**
 * Runs `second` (one second of load, reporting what it cost) until one is quiet, at most `max`
 * times. Returns how many seconds it ran and whether the last was quiet.
 */
export async function warmUntilQuiet(second: () => Promise<WarmWindow>, max = MAX_QUIET_SECONDS): Promise<{ seconds: number; quiet: boolean }> {
  for (let seconds = 1; seconds <= max; seconds++) {
    if (isQuiet(await second())) return { seconds, quiet: true };
  }
  return { seconds: max, quiet: false };
}

/** One second of `load` on the server `pid`, with its compiler threads' and its own CPU around it. */
export async function loadSecond(runtime: Runtime, pid: number, load: () => Promise<unknown>): Promise<WarmWindow> {
  const compiler0 = compilerMicros(runtime, threadCpu(pid), pid);
  const process0 = cpuMicros(pid);
  await load();
  return { compilerMicros: compilerMicros(runtime, threadCpu(pid), pid) - compiler0, processMicros: cpuMicros(pid) - process0 };
}
