/**
 * A repeatable source of small random integers for differential tests (a linear congruential
 * generator): `next(n)` is in [0, n). The same seed gives the same inputs on every run.
 */
export function seededInts(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
}
