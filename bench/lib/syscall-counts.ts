/**
 * Reads `strace -c -f` summaries: system calls by name, so that a run's counts can be divided by
 * its requests. strace slows the traced process a great deal, so its counts are read, never its
 * times.
 */
export interface SyscallCount {
  name: string;
  calls: number;
  errors: number;
}

/** The rows of strace's `-c` table (`% time seconds usecs/call calls errors syscall`), total excluded. */
export function readStraceSummary(text: string): SyscallCount[] {
  const rows: SyscallCount[] = [];
  for (const line of text.split('\n')) {
    // The errors column is blank when a call never failed.
    const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?([a-z_0-9]+)\s*$/.exec(line);
    if (!match || match[3] === 'total') continue;
    rows.push({ name: match[3]!, calls: Number(match[1]), errors: Number(match[2] ?? 0) });
  }
  return rows.sort((a, b) => b.calls - a.calls);
}

export function syscallMarkdown(rows: readonly SyscallCount[], requests: number): string {
  const per = (n: number) => (n / requests).toFixed(2);
  const total = rows.reduce((sum, r) => sum + r.calls, 0);
  return [
    '| system call | per request | failed per request |',
    '|---|---:|---:|',
    ...rows.filter((r) => r.calls / requests >= 0.01).map((r) => `| ${r.name} | ${per(r.calls)} | ${r.errors ? per(r.errors) : ''} |`),
    `| all | ${per(total)} | |`,
  ].join('\n');
}
