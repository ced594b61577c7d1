import { memory } from './proc-stats.ts';
import type { SoakResult } from './report.ts';
import type { Runtime, Server } from './servers.ts';
import { MiB } from './stats.ts';
import { errorCount, runWrk } from './wrk.ts';

const MARKS = [10, 50, 100];

/**
 * Sends `target` requests of one scenario to the gateway in wrk runs of at most 15 s (sized from
 * the measured rate so the 10%, 50% and 100% marks are hit closely), sampling the serving
 * process's RSS after each run.
 */
export async function soak(opts: {
  wrk: string;
  loadCpu: number;
  runtime: Runtime;
  scenario: string;
  storage: 'memory' | 'sqlite';
  url: string;
  gateway: Server;
  target: number;
  say: (line: string) => void;
}): Promise<SoakResult> {
  const result: SoakResult = { runtime: opts.runtime, scenario: opts.scenario, storage: opts.storage, target: opts.target, errors: 0, samples: [], marks: [] };
  let done = 0;
  let rate = 0;
  let errors = 0;
  for (const percent of MARKS) {
    const goal = Math.round((opts.target * percent) / 100);
    while (done < goal) {
      // Undershoot (0.9×) and finish with short runs, so a mark is passed by seconds, not by a whole run.
      const seconds = rate ? Math.min(15, Math.max(1, Math.floor((0.9 * (goal - done)) / rate))) : 2;
      const r = await runWrk(opts.wrk, opts.loadCpu, opts.url, opts.scenario, 64, seconds);
      opts.gateway.assertAlive(`the soak, after ${(done + r.requests).toLocaleString('en-US')} requests`);
      done += r.requests;
      rate = r.rps;
      errors += errorCount(r);
      const m = memory(opts.gateway.pid);
      result.samples.push({ requests: done, rss: m.rss, peak: m.peak, rps: r.rps });
      opts.say(`  ${done.toLocaleString('en-US')} requests, ${Math.round(r.rps).toLocaleString('en-US')} req/s, RSS ${(m.rss / MiB).toFixed(1)} MiB, peak ${(m.peak / MiB).toFixed(1)} MiB${errors ? `, ${errors} errors` : ''}`);
    }
    const last = result.samples.at(-1)!;
    result.marks.push({ percent, requests: last.requests, rss: last.rss, peak: last.peak });
  }
  result.errors = errors;
  return result;
}
