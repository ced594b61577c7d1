import { describe, expect, it } from 'vitest';
import { readJitDump, writePerfMap } from '../../../bench/lib/jitdump.ts';
import { attributionMarkdown, createAttribution, frameKind, jsFunctionName, readPerfScript, type Sample } from '../../../bench/lib/perf-samples.ts';
import { compilerMicros, readThreadStat, threadCpuPerRequest } from '../../../bench/lib/proc-stats.ts';

/** A JITDump as JSC writes it: header, then records (CODE_LOAD = 0), little-endian. */
function jitDump(records: Array<{ id: number; address?: bigint; name?: string; code?: number; size?: number }>): Uint8Array {
  const parts: number[] = [];
  const u32 = (n: number) => parts.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
  const u64 = (n: bigint) => {
    for (let i = 0n; i < 8n; i++) parts.push(Number((n >> (8n * i)) & 0xffn));
  };
  u32(0x4a695444), u32(1), u32(40), u32(62), u32(0), u32(1234), u64(1n), u64(0n);
  for (const r of records) {
    const name = new TextEncoder().encode(r.name ?? '');
    const code = r.code ?? 0;
    const body = r.id === 0 ? 40 + name.length + 1 + code : 8;
    u32(r.id), u32(r.size ?? 16 + body), u64(2n);
    if (r.id === 0) {
      u32(1234), u32(1235), u64(r.address!), u64(r.address!), u64(BigInt(code)), u64(7n);
      parts.push(...name, 0, ...new Array<number>(code).fill(0x90));
    } else u64(0n);
  }
  return new Uint8Array(parts);
}

describe('readJitDump', () => {
  it("reads JSC's code-load records as perf map symbols and skips other records", () => {
    const bytes = jitDump([
      { id: 0, address: 0x7f2e62298000n, name: 'JSC-Thunk: DefaultCall', code: 16 },
      { id: 3 },
      { id: 0, address: 0x7f2e6234c100n, name: 'JSC-FTL: runPassthrough#B2tBwQ', code: 64 },
    ]);
    const symbols = readJitDump(bytes);
    expect(symbols).toEqual([
      { address: 0x7f2e62298000n, size: 16n, name: 'JSC-Thunk: DefaultCall' },
      { address: 0x7f2e6234c100n, size: 64n, name: 'JSC-FTL: runPassthrough#B2tBwQ' },
    ]);
    expect(writePerfMap(symbols)).toBe('7f2e62298000 10 JSC-Thunk: DefaultCall\n7f2e6234c100 40 JSC-FTL: runPassthrough#B2tBwQ\n');
  });

  it('stops at a record cut short (a process killed while writing) and refuses other files', () => {
    const whole = jitDump([{ id: 0, address: 0x1000n, name: 'JSC-DFG: a#X', code: 8 }, { id: 0, address: 0x2000n, name: 'JSC-DFG: b#Y', code: 8 }]);
    expect(readJitDump(whole.subarray(0, whole.length - 4)).map((s) => s.name)).toEqual(['JSC-DFG: a#X']);
    expect(() => readJitDump(new TextEncoder().encode('not a dump at all'))).toThrow(/JiTD/);
  });
});

const SCRIPT = [
  'bun  100  10.500000: ',
  '\t    7f0000001000 JSC-FTL: spliceTopLevel#AAA (/tmp/perf-100.map)',
  '\t    7f0000002000 JSC-Thunk: CallTrampoline (/tmp/perf-100.map)',
  '\t    7f0000003000 JSC-FTL: runPassthrough#BBB (/tmp/perf-100.map)',
  '\t         1a44ff1 [unknown] (/work/node_modules/bun/bin/bun.exe)',
  '',
  'bun  100  10.600000: ',
  '\t         1b00000 [unknown] (/work/node_modules/bun/bin/bun.exe)',
  '\t    7f0000004000 JSC-YarrJIT: /^\\/api\\/(x|y)$/ (/tmp/perf-100.map)',
  '\t    7f0000003000 JSC-FTL: runPassthrough#BBB (/tmp/perf-100.map)',
  '\t    7f0000005000 JSC-DFG: runPassthrough#BBB (/tmp/perf-100.map)',
  '',
  'bun  100  10.700000: ',
  '\tffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])',
  '\t           d4ad7 __send (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '',
  'HTTP Client  101  10.650000: ',
  '\tffffffff81000130 tcp_sendmsg ([kernel.kallsyms])',
  '',
  'bun  100  12.000000: ',
  '\t    7f0000001000 JSC-FTL: spliceTopLevel#AAA (/tmp/perf-100.map)',
  '',
];

function samples(lines: string[]): Sample[] {
  const out: Sample[] = [];
  readPerfScript(lines, (s) => out.push(s));
  return out;
}

describe('readPerfScript', () => {
  it('reads thread names with spaces, and symbols with spaces and parentheses', () => {
    const read = samples(SCRIPT);
    expect(read.map((s) => [s.thread, s.tid, s.time, s.frames.length])).toEqual([
      ['bun', 100, 10.5, 4],
      ['bun', 100, 10.6, 4],
      ['bun', 100, 10.7, 2],
      ['HTTP Client', 101, 10.65, 1],
      ['bun', 100, 12, 1],
    ]);
    expect(read[1]!.frames[1]).toEqual({ symbol: 'JSC-YarrJIT: /^\\/api\\/(x|y)$/', dso: '/tmp/perf-100.map' });
  });
});

describe('frame names', () => {
  it('tells JIT code, the runtime binary, the kernel and libraries apart', () => {
    expect(frameKind({ symbol: 'x', dso: '/tmp/perf-100.map' })).toBe('js');
    expect(frameKind({ symbol: '[unknown]', dso: '/a/node_modules/bun/bin/bun.exe' })).toBe('runtime');
    expect(frameKind({ symbol: 'Builtins_JSEntry', dso: '/usr/local/bin/node' })).toBe('runtime');
    expect(frameKind({ symbol: 'tcp_sendmsg', dso: '[kernel.kallsyms]' })).toBe('kernel');
    expect(frameKind({ symbol: '__send', dso: '/usr/lib/x86_64-linux-gnu/libc.so.6' })).toBe('lib');
  });

  it("names JSC's and V8's JavaScript functions, and leaves glue and regular expressions to their caller", () => {
    expect(jsFunctionName('JSC-FTL: runPassthrough#B2tBwQ')).toBe('runPassthrough');
    expect(jsFunctionName('JSC-Baseline: #DuCbiC')).toBe('(anonymous)');
    expect(jsFunctionName('JSC-DFG: #read#EOqgpj')).toBe('#read');
    expect(jsFunctionName('JS:*runPassthrough file:///work/main/dist/node.mjs:1556:34')).toBe('runPassthrough node.mjs:1556');
    expect(jsFunctionName('LazyCompile:~emit node:events:470')).toBe('emit node:events:470');
    // Deno's V8 marks the tier with more characters (+ Maglev, ' …).
    expect(jsFunctionName("JS:+'runPassthrough file:///work/main/core/chat/run-passthrough.ts:14:3")).toBe('runPassthrough run-passthrough.ts:14');
    expect(jsFunctionName("JS:+' file:///work/main/core/gateway.ts:29:5")).toBe('(anonymous) gateway.ts:29');
    expect(jsFunctionName('JSC-Thunk: CallTrampoline')).toBeUndefined();
    expect(jsFunctionName('JSC-InlineCache: PutByVal Transition handler')).toBeUndefined();
    expect(jsFunctionName('JSC-YarrJIT: /\\/+$/')).toBeUndefined();
    expect(jsFunctionName('JSC-FTLOSRExit: unspecified')).toBeUndefined();
  });
});

describe('createAttribution', () => {
  it('sums the main thread in the window by where it ran and the innermost JavaScript function that led there', () => {
    const a = createAttribution({ from: 10, to: 11, mainTid: 100 });
    for (const s of samples(SCRIPT)) a.add(s);
    const r = a.result();
    expect(r.threads).toEqual([{ thread: 'bun (main)', samples: 3 }, { thread: 'HTTP Client', samples: 1 }]);
    expect(r.main.samples).toBe(3);
    expect(Object.fromEntries(r.main.self)).toEqual({ js: 1, runtime: 1, kernel: 1 });
    expect(Object.fromEntries(r.main.byCaller)).toEqual({
      'js ← spliceTopLevel': 1,
      'runtime ← runPassthrough': 1,
      'kernel ← (no JavaScript)': 1,
    });
    // runPassthrough twice on one chain (two tiers) counts once for that sample.
    expect(Object.fromEntries(r.main.inclusive)).toEqual({ spliceTopLevel: 1, runPassthrough: 2 });
    expect(Object.fromEntries(r.main.kernel)).toEqual({ '(no system call): entry_SYSCALL_64_after_hwframe': 1 });
    const md = attributionMarkdown(r, { frequency: 1000, requests: 10, top: 5 });
    expect(md).toContain('| bun (main) | 300.0 | 75.0% |');
    expect(md).toContain('| runPassthrough | 200.0 | 66.7% |');
    expect(md).toContain('| (no system call): entry_SYSCALL_64_after_hwframe | 100.0 | 33.3% |');
  });

  it("names a kernel sample's system call, its leaf and the leaf's caller (a wake-up charged to the unlock)", () => {
    const a = createAttribution({ from: 10, to: 11, mainTid: 100 });
    const wake = [
      'bun  100  10.100000: ',
      '\tffffffff81a00001 _raw_spin_unlock_irqrestore ([kernel.kallsyms])',
      '\tffffffff81a00002 sock_def_readable ([kernel.kallsyms])',
      '\tffffffff81a00003 tcp_rcv_established ([kernel.kallsyms])',
      '\tffffffff81a00004 __x64_sys_sendto ([kernel.kallsyms])',
      '\tffffffff81a00005 do_syscall_64 ([kernel.kallsyms])',
      '\t           d4ad7 __send (/usr/lib/x86_64-linux-gnu/libc.so.6)',
      '',
    ];
    // Node's writev, whose wrapper the kernel inlined: the call is the frame do_syscall_64 called.
    const writev = ['node  100  10.300000: ', '\tffffffff81a00001 _raw_spin_unlock_irqrestore ([kernel.kallsyms])', '\tffffffff81a00002 sock_def_readable ([kernel.kallsyms])', '\tffffffff81a00006 do_softirq.part.0 ([kernel.kallsyms])', '\tffffffff81a00007 do_writev ([kernel.kallsyms])', '\tffffffff81a00005 do_syscall_64 ([kernel.kallsyms])', ''];
    for (const s of samples([...wake, ...wake, 'bun  100  10.200000: ', '\tffffffff81a00009 clear_page_erms ([kernel.kallsyms])', '\t         1b00000 [unknown] (/work/node_modules/bun/bin/bun.exe)', '', ...writev])) a.add(s);
    expect(Object.fromEntries(a.result().main.kernel)).toEqual({
      'sendto: _raw_spin_unlock_irqrestore ← sock_def_readable': 2,
      'writev: _raw_spin_unlock_irqrestore ← sock_def_readable': 1,
      // A page fault under runtime code: no system call, and the caller is not the kernel's.
      '(no system call): clear_page_erms': 1,
    });
  });
});

describe('CPU per thread from /proc', () => {
  it('reads a thread name with spaces and parentheses, and utime and stime in clock ticks', () => {
    const stat = '4242 (JSC Heap (x) Thread) S 1 2 3 0 -1 4194368 10 0 0 0 250 75 0 0 20 0 9 0 100 0 0';
    const t = readThreadStat(4242, stat);
    expect(t.name).toBe('JSC Heap (x) Thread');
    // 100 ticks per second on Linux: 250 ticks = 2.5 s.
    expect(t.user / t.system).toBeCloseTo(250 / 75);
  });

  it('gives µs per request per thread name, the main thread apart, and what ended meanwhile as its own row', () => {
    const t = (tid: number, name: string, user: number, system: number) => ({ tid, name, user, system });
    const before = [t(10, 'bun', 1_000, 500), t(11, 'HTTP Client', 0, 100), t(12, 'Pool', 50, 0)];
    const after = [t(10, 'bun', 5_000, 1_500), t(11, 'HTTP Client', 0, 1_100), t(12, 'Pool', 50, 0), t(13, 'Pool', 200, 0)];
    const rows = threadCpuPerRequest(before, after, 6_400, 10, 100);
    // Thread 13 began during the run (counted from zero); 200 µs of the process's 6,400 were in
    // threads gone by the second snapshot.
    expect(rows).toEqual([
      { thread: 'bun (main)', user: 40, system: 10, total: 50 },
      { thread: 'HTTP Client', user: 0, system: 10, total: 10 },
      { thread: 'Pool', user: 2, system: 0, total: 2 },
      { thread: '(threads that started or ended meanwhile)', user: NaN, system: NaN, total: 2 },
    ]);
  });

  it("sums the JIT compiler threads: Bun's JITWorker; V8's workers on Node (named like the main thread) and Deno", () => {
    const t = (tid: number, name: string, user: number, system: number) => ({ tid, name, user, system });
    const bun = [t(10, 'bun', 9_000, 900), t(11, 'HTTP Client', 400, 4_000), t(12, 'JITWorker', 300, 20), t(13, 'JITWorker', 100, 0), t(14, 'mi-scavenger', 50, 50)];
    expect(compilerMicros('bun', bun, 10)).toBe(420);
    const node = [t(20, 'node', 9_000, 900), t(21, 'node', 700, 10), t(22, 'node', 200, 0), t(23, 'libuv-worker', 30, 0)];
    expect(compilerMicros('node', node, 20)).toBe(910);
    const deno = [t(30, 'deno', 9_000, 900), t(31, 'deno', 500, 0), t(32, 'V8 DefaultWorke', 250, 5), t(33, 'tokio-runtime-w', 40, 0)];
    expect(compilerMicros('deno', deno, 30)).toBe(255);
  });
});
