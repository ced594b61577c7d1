/**
 * Writes put off until the event loop has run this turn's I/O callbacks, then made one after the
 * other. Each write to a socket whose reader sleeps wakes that reader; when the reader is a
 * process on another core (an upstream, a load generator, a client on the same host) the wake-up
 * is an inter-processor interrupt, paid by the writer inside its `send`. Made as each request is
 * handled, a write comes a request's work after the last one, by when the reader has gone back to
 * sleep, so nearly every write paid a wake-up: on the benchmark's two cores, 22% of the Bun
 * gateway's samples under perf were those wake-ups (`sock_def_readable` under `sendto`). Made
 * back to back at the turn's end, one wake-up serves them all. The delay is bounded by the
 * turn's own work, never by a timer, and only upstream requests and whole answers wait: a live
 * stream's chunks do not. (docs/performance-rounds.md, thirty-ninth round.)
 *
 * A job must not throw: one that does is logged, and the others still run.
 */
export type TurnEndJob<A, B, C = undefined> = (a: A, b: B, c: C) => void;

// Flat (job, a, b, c) quadruples: no object per job. Two arrays take turns, so a turn allocates none.
let queued: unknown[] = [];
let spare: unknown[] = [];
let scheduled = false;

export function atTurnEnd<A, B, C = undefined>(job: TurnEndJob<A, B, C>, a: A, b: B, c?: C): void {
  queued.push(job, a, b, c);
  if (scheduled) return;
  scheduled = true;
  // setImmediate runs after the I/O callbacks of this turn and their promise jobs.
  setImmediate(runQueued);
}

function runQueued(): void {
  scheduled = false;
  const jobs = queued;
  // What a job queues goes to the next turn's list (with its own setImmediate), not this one.
  queued = spare;
  for (let i = 0; i < jobs.length; i += 4) {
    try {
      (jobs[i] as TurnEndJob<unknown, unknown, unknown>)(jobs[i + 1], jobs[i + 2], jobs[i + 3]);
    } catch (err) {
      console.error('switchyard: a write put off to the end of the turn failed', err);
    }
  }
  jobs.length = 0;
  spare = jobs;
}
