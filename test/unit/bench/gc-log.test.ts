import { describe, expect, it } from 'vitest';
import { gcMarkdown, readGcLog } from '../../../bench/lib/gc-log.ts';

// As Bun 1.4.5 printed them with BUN_JSC_logGC=1 (shortened where marked), and an access-log line.
const BUN_LOG = [
  'Requesting GC because bytes allocated this cycle: 12247412 exceed bytes allowed: 12226799 normal bytes: 12247412 oversized bytes: 0 last oversized: 0',
  '[GC<0x35b6fca8118>: START M 26967kb => EdenCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0) o=376 b=468 i#1:N<CsMsrShDMsm(479)SrbBcs> 82+479 => 13517kb, p=1.460939ms (max 2.285619), cycle 1.449863ms END]',
  'GC END!',
  '{"ts":"2026-11-29T10:00:00.000Z","status":200}',
  '[GC<0x5d86999c118>: START M 9125kb => FullCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0) o=0 b=0 i#1:N<CsMsrShDMsm(0)SrbBcs> 452+0 p=2.068285ms (max 2.068285)...]',
  '[GC<0x5d86999c118>: M a=94kb hf=0.028 mu=0.583 v=8466kb (C:8466 M:0) o=0 b=1 0+1 p=0.815356ms (max 2.068285)...]',
  '[GC<0x5d86999c118>: M a=1350kb (…) => 9646kb, p=2.242084ms (max 2.242084), cycle 6.389069ms END]',
  'Requesting GC because bytes allocated this cycle: 12233181 exceed bytes allowed: 12226799 normal bytes: 12233181 oversized bytes: 0 last oversized: 0',
  '[GC<0x35b6fca8118>: START M 27326kb => EdenCollection, a=0kb (…) => 14090kb, p=1.292397ms (max 2.285619), cycle 1.281791ms END]',
].join('\n');

// As Node 20 printed them with --trace-gc, between access-log lines.
const V8_LOG = [
  '[31538:0x3dfb20b0]       22 ms: Scavenge 3.8 (4.0) -> 3.4 (5.0) MB, 1.11 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
  '{"ts":"2026-11-29T10:00:00.000Z","status":200}',
  '[31538:0x3dfb20b0]       24 ms: Scavenge 4.1 (5.2) -> 3.7 (5.7) MB, 1.20 / 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ',
  '[31538:0x3dfb20b0]     2345 ms: Mark-Compact 20.1 (25.0) -> 15.0 (24.0) MB, 5.12 / 0.00 ms  (+ 1.2 ms in 10 steps since start of marking, biggest step 0.3 ms, walltime since start of marking 12 ms) (average mu = 0.990, current mu = 0.990) finalize incremental marking via stack guard; GC in old space requested',
  '[31538:0x3dfb20b0]     2400 ms: Mark-Compact (reduce) 15.1 (24.0) -> 14.0 (20.0) MB, 3.00 / 0.00 ms  (average mu = 0.990, current mu = 0.990) low memory notification; GC in old space requested',
].join('\n');

describe('readGcLog', () => {
  it("reads Bun's collections by kind, each cycle's length, and the bytes the eden collections found", () => {
    const summary = readGcLog('bun', BUN_LOG);
    expect(summary.kinds.Eden!.collections).toBe(2);
    expect(summary.kinds.Eden!.ms).toBeCloseTo(1.449863 + 1.281791, 6);
    expect(summary.kinds.Full).toEqual({ collections: 1, ms: 6.389069 });
    expect(summary.allocatedBytes).toBe(12247412 + 12233181);
  });

  it('leaves out a Bun cycle whose start came before the window', () => {
    expect(readGcLog('bun', '[GC<0x1>: M a=1kb => 9646kb, p=2.2ms (max 2.2), cycle 6.0ms END]').kinds).toEqual({});
  });

  it("reads V8's collections by kind and their pauses, among other lines", () => {
    const summary = readGcLog('node', V8_LOG);
    expect(summary.kinds).toEqual({
      Scavenge: { collections: 2, ms: expect.closeTo(2.31, 6) },
      'Mark-Compact': { collections: 1, ms: 5.12 },
      'Mark-Compact (reduce)': { collections: 1, ms: 3 },
    });
    expect(summary.allocatedBytes).toBeUndefined();
  });

  it('writes a table per request, with the total', () => {
    const table = gcMarkdown(readGcLog('bun', BUN_LOG), 1000);
    expect(table).toContain('| Eden | 2 | 2.7 | 2.73 |');
    expect(table).toContain('| Full | 1 | 6.4 | 6.39 |');
    expect(table).toContain('| all | 3 | 9.1 | 9.12 |');
    expect(table).toContain('Allocated, as the eden collections counted it: 23.9 KiB per request.');
  });
});
