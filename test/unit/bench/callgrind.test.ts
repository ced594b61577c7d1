import { describe, expect, it } from 'vitest';
import { perRequest, readCollected } from '../../../bench/lib/callgrind.ts';

describe('bench:count arithmetic', () => {
  it("reads callgrind's total from its stderr, and nothing from other output", () => {
    const stderr = '==4242== Callgrind, a call-graph generating cache profiler\n==4242== \n==4242== Events    : Ir\n==4242== Collected : 983981727\n==4242== \n==4242== I   refs:      983,981,727\n';
    expect(readCollected(stderr)).toBe(983_981_727);
    expect(readCollected('Collected : 12 (printed by the program itself)')).toBeUndefined();
    expect(readCollected('')).toBeUndefined();
  });

  it('takes the per-request count from the difference of two runs', () => {
    expect(perRequest({ requests: 400, instructions: 1_000_000_000 }, { requests: 1200, instructions: 1_672_000_000 })).toBe(840_000);
    expect(() => perRequest({ requests: 400, instructions: 1 }, { requests: 400, instructions: 2 })).toThrow();
  });
});
