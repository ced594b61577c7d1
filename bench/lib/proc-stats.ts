import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Readers of /proc: the process tree, who listens on a port, CPU time, memory. Linux only. */

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // process ended
  }
  return out;
}

export function pidTree(root: number): number[] {
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...childrenOf(all[i]!));
  return all;
}

function listeningInode(port: number): string | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols[1] local address, cols[3] state (0A = LISTEN), cols[9] inode
      if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === '0A') return cols[9];
    }
  }
  return undefined;
}

/**
 * The process of `root`'s tree that holds the listening socket on `port`: wrappers (tsx, npm
 * shims) may sit above it, and memory and CPU targets are about the process that serves.
 */
export function listeningPid(root: number, port: number): number {
  const inode = listeningInode(port);
  if (!inode) throw new Error(`nothing listens on port ${port}`);
  const want = `socket:[${inode}]`;
  for (const pid of pidTree(root)) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === want) return pid;
      } catch {
        // fd closed meanwhile
      }
    }
  }
  throw new Error(`port ${port} is not held by process ${root} or its children`);
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime of the whole process (all threads), in microseconds. */
export function cpuMicros(pid: number): number {
  const { user, system } = readThreadStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return user + system;
}

/**
 * Minor page faults of the whole process so far (field 10 of `/proc/<pid>/stat`): each is a
 * first touch of a page the kernel then zeroes, which shows as kernel time with no system call.
 */
export function minorFaults(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
}

export interface ThreadCpu {
  tid: number;
  name: string;
  /** Microseconds in user space and in the kernel. */
  user: number;
  system: number;
}

/** utime and stime of each live thread of `pid`, in microseconds (`/proc/<pid>/task/<tid>/stat`). */
export function threadCpu(pid: number): ThreadCpu[] {
  const threads: ThreadCpu[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    threads.push(readThreadStat(Number(tid), stat));
  }
  return threads;
}

/**
 * One `stat` line (a process's or a thread's): the name sits in parentheses and may hold spaces
 * and parentheses itself. After it, fields[0] is field 3 (state); utime and stime are 14 and 15.
 */
export function readThreadStat(tid: number, stat: string): ThreadCpu {
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { tid, name: stat.slice(stat.indexOf('(') + 1, close), user: (Number(fields[11]) * 1e6) / CLK_TCK, system: (Number(fields[12]) * 1e6) / CLK_TCK };
}

/**
 * CPU of a process's JIT compiler threads, in microseconds: JavaScriptCore's `JITWorker` threads on
 * Bun; V8's platform workers elsewhere, which run its background compile jobs (and, unless GC is
 * single-threaded, parallel GC tasks too): on Node the threads other than the main one with its
 * name, on Deno `V8 DefaultWorker` (cut to 15 characters by the kernel).
 */
export function compilerMicros(runtime: string, threads: readonly ThreadCpu[], mainTid: number): number {
  const main = threads.find((t) => t.tid === mainTid)?.name;
  let total = 0;
  for (const t of threads) {
    const compiler = runtime === 'bun' ? t.name === 'JITWorker' : runtime === 'deno' ? t.name.startsWith('V8 DefaultWorke') : t.tid !== mainTid && t.name === main;
    if (compiler) total += t.user + t.system;
  }
  return total;
}

export interface ThreadCpuRow {
  thread: string;
  /** NaN for the remainder row, whose split the process total does not give per thread. */
  user: number;
  system: number;
  total: number;
}

/**
 * CPU between two snapshots per thread name (the main thread apart), in µs per request. Threads
 * that began and ended between the snapshots show only in the process's total: that remainder
 * is a row of its own, so the rows add up to what the process used.
 */
export function threadCpuPerRequest(before: readonly ThreadCpu[], after: readonly ThreadCpu[], processMicros: number, mainTid: number, requests: number): ThreadCpuRow[] {
  const start = new Map(before.map((t) => [t.tid, t]));
  const rows = new Map<string, ThreadCpuRow>();
  let counted = 0;
  for (const t of after) {
    const b = start.get(t.tid);
    const user = t.user - (b?.user ?? 0);
    const system = t.system - (b?.system ?? 0);
    if (user + system <= 0) continue;
    const thread = t.tid === mainTid ? `${t.name} (main)` : t.name;
    const row = rows.get(thread) ?? { thread, user: 0, system: 0, total: 0 };
    row.user += user / requests;
    row.system += system / requests;
    row.total += (user + system) / requests;
    rows.set(thread, row);
    counted += user + system;
  }
  const rest = processMicros - counted;
  const out = [...rows.values()].sort((a, b) => b.total - a.total);
  if (rest > 0) out.push({ thread: '(threads that started or ended meanwhile)', user: NaN, system: NaN, total: rest / requests });
  return out;
}

/** Busy time of one core since boot (everything but idle and iowait), in microseconds. */
export function coreBusyMicros(cpu: number): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`cpu${cpu} `));
  if (!line) return NaN;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1e6) / CLK_TCK;
}

/**
 * VmRSS (current) and VmHWM (peak) in bytes, and the current resident set's two parts: `file`
 * (RssFile: pages of mapped files, above all the runtime's own executable, which a runtime pages
 * in as it first runs each part of itself) and `anon` (RssAnon: the heap, allocator pages, JIT code).
 */
export function memory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

export interface ProcMemory {
  rss: number;
  peak: number;
  anon: number;
  file: number;
}
