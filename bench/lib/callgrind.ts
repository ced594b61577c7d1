/** callgrind's "Collected : N" line on stderr: the instructions the process ran. */
export function readCollected(stderr: string): number | undefined {
  const match = /==\d+== Collected\s*:\s*(\d+)/.exec(stderr);
  return match ? Number(match[1]) : undefined;
}

/**
 * Instructions per request from two runs of the same probe: the difference of their counts over
 * the difference of their requests, so start-up and the first compiles cancel out.
 */
export function perRequest(low: { requests: number; instructions: number }, high: { requests: number; instructions: number }): number {
  if (high.requests <= low.requests) throw new Error('the second run must make more requests');
  return (high.instructions - low.instructions) / (high.requests - low.requests);
}
