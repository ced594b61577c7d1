/**
 * The collector's own log, read for `bench:profile --gc`: on Bun JavaScriptCore's
 * (`BUN_JSC_logGC=1`, on stderr), on Node and Deno V8's (`--trace-gc`, on stdout, between the
 * access-log lines).
 */
import type { Runtime } from './servers.ts';

export interface GcKind {
  collections: number;
  /** Bun: each cycle's length, start to end; V8: each collection's pause. */
  ms: number;
}

export interface GcSummary {
  /** By the collector's own name: Eden and Full on Bun; Scavenge, Mark-Compact… on V8. */
  kinds: Record<string, GcKind>;
  /** Bun only: what the eden collections found allocated since the one before. */
  allocatedBytes?: number;
}

// JavaScriptCore: "[GC<0x…>: START M 26967kb => EdenCollection, …" then, on that line or a later
// one, "… cycle 1.449863ms END]"; a collection the allocator asked for is announced first with
// "Requesting GC because bytes allocated this cycle: 12247412 exceed …".
const JSC_START = /=> (\w+)Collection\b/;
const JSC_END = /cycle (\d+(?:\.\d+)?)ms END/;
const JSC_ALLOCATED = /bytes allocated this cycle: (\d+)/;
// V8: "[31538:0x3dfb20b0]       22 ms: Scavenge 3.8 (4.0) -> 3.4 (5.0) MB, 1.11 / 0.00 ms  (…"
const V8_LINE = /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: ([A-Za-z][A-Za-z -]*?(?: \([a-z ]+\))?) [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms/;

export function readGcLog(runtime: Runtime, text: string): GcSummary {
  const kinds: Record<string, GcKind> = {};
  const add = (kind: string, ms: number) => {
    const entry = (kinds[kind] ??= { collections: 0, ms: 0 });
    entry.collections++;
    entry.ms += ms;
  };
  if (runtime !== 'bun') {
    for (const line of text.split('\n')) {
      const match = V8_LINE.exec(line);
      if (match) add(match[1]!, Number(match[2]));
    }
    return { kinds };
  }
  let allocatedBytes = 0;
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const allocated = JSC_ALLOCATED.exec(line);
    if (allocated) allocatedBytes += Number(allocated[1]);
    const start = JSC_START.exec(line);
    if (start) open = start[1]!;
    const end = JSC_END.exec(line);
    // An end with no start seen belongs to a collection that began before the measured window.
    if (end && open !== undefined) {
      add(open, Number(end[1]));
      open = undefined;
    }
  }
  return { kinds, allocatedBytes };
}

export function gcMarkdown(summary: GcSummary, requests: number): string {
  const rows = Object.entries(summary.kinds).sort(([a], [b]) => a.localeCompare(b));
  const total = rows.reduce((sum, [, k]) => sum + k.ms, 0);
  return [
    '| collection | count | ms | µs per request |',
    '|---|---:|---:|---:|',
    ...rows.map(([kind, k]) => `| ${kind} | ${k.collections} | ${k.ms.toFixed(1)} | ${((k.ms * 1000) / requests).toFixed(2)} |`),
    `| all | ${rows.reduce((sum, [, k]) => sum + k.collections, 0)} | ${total.toFixed(1)} | ${((total * 1000) / requests).toFixed(2)} |`,
    ...(summary.allocatedBytes !== undefined ? ['', `Allocated, as the eden collections counted it: ${(summary.allocatedBytes / requests / 1024).toFixed(1)} KiB per request.`] : []),
  ].join('\n');
}
