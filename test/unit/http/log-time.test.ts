import { describe, expect, it } from 'vitest';
import { writeLogTime } from '../../../core/http/log-time.ts';

describe('writeLogTime', () => {
  it('is Date#toISOString to the millisecond, within a second and across seconds, days and years', () => {
    const starts = [Date.UTC(2026, 10, 27, 16, 34, 33), Date.UTC(2026, 11, 31, 23, 59, 59), Date.UTC(2028, 1, 29, 0, 0, 0), 0, Date.UTC(10000, 0, 1)];
    for (const start of starts) {
      for (const offset of [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 61_000, 86_400_000]) {
        const now = start + offset;
        expect(writeLogTime(now), String(now)).toBe(new Date(now).toISOString());
      }
    }
  });

  it('answers from the second it has cached and moves on when the clock does', () => {
    const base = Date.UTC(2026, 10, 27, 12, 0, 0);
    expect(writeLogTime(base + 5)).toBe('2026-11-27T12:00:00.005Z');
    expect(writeLogTime(base + 1_005)).toBe('2026-11-27T12:00:01.005Z');
    // A clock that steps back is followed too.
    expect(writeLogTime(base - 995)).toBe('2026-11-27T11:59:59.005Z');
  });

  it('gives the same string for calls in the same millisecond, and a fresh one after', () => {
    const base = Date.UTC(2026, 10, 30, 0, 0, 0);
    expect(writeLogTime(base + 7)).toBe('2026-11-30T00:00:00.007Z');
    expect(writeLogTime(base + 7)).toBe('2026-11-30T00:00:00.007Z');
    expect(writeLogTime(base + 8)).toBe('2026-11-30T00:00:00.008Z');
    expect(writeLogTime(base + 7)).toBe('2026-11-30T00:00:00.007Z');
  });
});
