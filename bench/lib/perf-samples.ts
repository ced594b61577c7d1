/**
 * `perf script -F comm,tid,time,ip,sym,dso` output (with call chains) read into samples, and the
 * samples of one process summed per thread and, for its main thread, per "where the CPU was" and
 * "which JavaScript function caused it". A runtime's own profiler sees only JavaScript; perf sees
 * the native work too (JSON parsing, Headers, fetch, GC, the event loop, the kernel), and the
 * call chain says which JavaScript function it ran for.
 */
export interface Frame {
  symbol: string;
  dso: string;
}

export interface Sample {
  thread: string;
  tid: number;
  /** Seconds on the clock perf was told to use (`-k 1`: CLOCK_MONOTONIC, as process.hrtime). */
  time: number;
  /** Innermost first. */
  frames: Frame[];
}

export type FrameKind = 'js' | 'runtime' | 'kernel' | 'lib';

const HEADER = /^(.+?)\s+(\d+)\s+(\d+\.\d+):/;

/** Calls `onSample` for each sample block (a header line, its frame lines, a blank line). */
export function readPerfScript(lines: Iterable<string>, onSample: (s: Sample) => void): void {
  let current: Sample | undefined;
  for (const line of lines) {
    if (line.trim() === '') {
      if (current) onSample(current);
      current = undefined;
      continue;
    }
    if (line.startsWith('\t') || line.startsWith(' ')) {
      const frame = readFrame(line);
      if (frame && current) current.frames.push(frame);
      continue;
    }
    if (current) onSample(current);
    const head = HEADER.exec(line);
    current = head ? { thread: head[1]!.trim(), tid: Number(head[2]), time: Number(head[3]), frames: [] } : undefined;
  }
  if (current) onSample(current);
}

/** "\t    7f2e6229a338 JSC-FTL: run#AB (/tmp/perf-1.map)": the symbol may hold spaces and parentheses. */
function readFrame(line: string): Frame | undefined {
  const text = line.trim();
  const space = text.indexOf(' ');
  const open = text.lastIndexOf(' (');
  if (space === -1 || open < space || !text.endsWith(')')) return undefined;
  return { symbol: text.slice(space + 1, open), dso: text.slice(open + 2, -1) };
}

const RUNTIME_BINARIES = new Set(['bun', 'bun.exe', 'node', 'deno']);

export function frameKind(frame: Frame): FrameKind {
  if (frame.dso === '[kernel.kallsyms]') return 'kernel';
  // JIT code named by a perf map: Bun's (converted from JITDump) or Node's --perf-basic-prof.
  if (/\/perf-\d+\.map$/.test(frame.dso)) return 'js';
  const base = frame.dso.slice(frame.dso.lastIndexOf('/') + 1);
  return RUNTIME_BINARIES.has(base) ? 'runtime' : 'lib';
}

/**
 * A JavaScript function's name, or undefined for JIT glue (JSC thunks and inline caches, V8 stubs
 * and bytecode handlers) and compiled regular expressions, which belong to their caller.
 * JSC: "JSC-FTL: runPassthrough#B2tBwQ"; V8 (--perf-basic-prof): "JS:*runPassthrough file:///…/node.mjs:1556:34",
 * with one or more tier marks before the name (* ~ ^ + ').
 */
export function jsFunctionName(symbol: string): string | undefined {
  const jsc = /^JSC-(?:FTL|DFG|Baseline|LLInt): (.*?)(?:#\w+)?$/.exec(symbol);
  if (jsc) return jsc[1] || '(anonymous)';
  const v8 = /^(?:JS|LazyCompile|Function|InterpretedFunction):[*~^+']*(\S*)(?: (\S+))?/.exec(symbol);
  if (!v8) return undefined;
  const where = v8[2] ? /([^/]+?:\d+)(?::\d+)?$/.exec(v8[2])?.[1] : undefined;
  return `${v8[1] || '(anonymous)'}${where ? ` ${where}` : ''}`;
}

export interface ThreadProfile {
  thread: string;
  samples: number;
}

export interface MainThreadProfile {
  samples: number;
  /** Samples by the kind of code they were taken in. */
  self: Map<FrameKind, number>;
  /** "kind ← first JavaScript function up the chain" ("(no JavaScript)" for the event loop, GC…). */
  byCaller: Map<string, number>;
  /** Samples with the function anywhere on their chain, counted once per sample. */
  inclusive: Map<string, number>;
  /** Kernel samples by "system call: leaf ← its caller" (readKernelSite). */
  kernel: Map<string, number>;
}

export interface Attribution {
  threads: ThreadProfile[];
  main: MainThreadProfile;
}

const NO_JS = '(no JavaScript)';

/** Sums samples taken in [from, to] seconds; the main thread is the one whose tid is `mainTid`. */
export function createAttribution(window: { from: number; to: number; mainTid: number }): { add(sample: Sample): void; result(): Attribution } {
  const threads = new Map<string, number>();
  const main: MainThreadProfile = { samples: 0, self: new Map(), byCaller: new Map(), inclusive: new Map(), kernel: new Map() };
  const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);
  return {
    add(sample) {
      if (sample.time < window.from || sample.time > window.to) return;
      bump(threads, sample.tid === window.mainTid ? `${sample.thread} (main)` : sample.thread);
      if (sample.tid !== window.mainTid || sample.frames.length === 0) return;
      main.samples++;
      const kind = frameKind(sample.frames[0]!);
      bump(main.self, kind);
      if (kind === 'kernel') bump(main.kernel, readKernelSite(sample.frames));
      let caller: string | undefined;
      const seen = new Set<string>();
      for (const frame of sample.frames) {
        if (frameKind(frame) !== 'js') continue;
        const name = jsFunctionName(frame.symbol);
        if (name === undefined) continue;
        caller ??= name;
        if (!seen.has(name)) {
          seen.add(name);
          bump(main.inclusive, name);
        }
      }
      bump(main.byCaller, `${kind} ← ${caller ?? NO_JS}`);
    },
    result() {
      return { threads: [...threads].map(([thread, samples]) => ({ thread, samples })).sort((a, b) => b.samples - a.samples), main };
    },
  };
}

/**
 * Where a kernel sample landed: the system call it is under (or none: an interrupt, a page fault),
 * the leaf and its caller. The caller is there because, sampled by a timer in a VM, time with
 * interrupts masked lands on the unlock that unmasks them (`_raw_spin_unlock_irqrestore`), and
 * only the caller says what it was (the thirty-ninth round's wake-ups: `sock_def_readable`).
 */
export function readKernelSite(frames: readonly Frame[]): string {
  let call = '(no system call)';
  // The system call is the frame the kernel's dispatch called: `__x64_sys_sendto`, or where the
  // wrapper is inlined `do_writev` or `ksys_read`, named without those prefixes.
  for (let i = 1; i < frames.length; i++) {
    const symbol = frames[i]!.symbol;
    if (symbol !== 'do_syscall_64' && symbol !== 'x64_sys_call') continue;
    call = frames[i - 1]!.symbol.replace(/^(?:__x64_sys_|__sys_|ksys_|do_)/, '');
    break;
  }
  const caller = frames[1] && frameKind(frames[1]) === 'kernel' ? ` ← ${frames[1].symbol}` : '';
  return `${call}: ${frames[0]!.symbol}${caller}`;
}

/** Markdown tables; times as µs of CPU per request (samples ÷ frequency ÷ requests). */
export function attributionMarkdown(a: Attribution, opts: { frequency: number; requests: number; top: number }): string {
  const us = (samples: number) => ((samples / opts.frequency / opts.requests) * 1e6).toFixed(1);
  const pct = (samples: number, of: number) => `${((100 * samples) / Math.max(1, of)).toFixed(1)}%`;
  const rows = (map: Map<string, number>, of: number) =>
    [...map]
      .sort((x, y) => y[1] - x[1])
      .slice(0, opts.top)
      .map(([name, n]) => `| ${name.replace(/\|/g, '\\|')} | ${us(n)} | ${pct(n, of)} |`);
  const allThreads = a.threads.reduce((n, t) => n + t.samples, 0);
  const m = a.main;
  return [
    '| thread | µs/request | share |',
    '|---|---:|---:|',
    ...a.threads.map((t) => `| ${t.thread} | ${us(t.samples)} | ${pct(t.samples, allThreads)} |`),
    '',
    'Main thread, where the samples were taken:',
    '',
    '| code | µs/request | share of main |',
    '|---|---:|---:|',
    ...rows(new Map([...m.self].map(([k, n]) => [KIND_LABEL[k], n])), m.samples),
    '',
    'Main thread, by the innermost JavaScript function on the chain (what the native, kernel or JIT time ran for):',
    '',
    '| code ← JavaScript | µs/request | share of main |',
    '|---|---:|---:|',
    ...rows(m.byCaller, m.samples),
    '',
    'Main thread, JavaScript functions inclusive (their callees, native ones too):',
    '',
    '| function | µs/request | share of main |',
    '|---|---:|---:|',
    ...rows(m.inclusive, m.samples),
    '',
    'Main thread, kernel samples by system call and where they landed (leaf ← its caller):',
    '',
    '| system call: kernel function | µs/request | share of main |',
    '|---|---:|---:|',
    ...rows(m.kernel, m.samples),
  ].join('\n');
}

const KIND_LABEL: Record<FrameKind, string> = {
  js: 'JIT-compiled JavaScript',
  runtime: 'runtime binary (interpreter, builtins, GC, HTTP, event loop)',
  kernel: 'kernel',
  lib: 'shared libraries (libc…)',
};
