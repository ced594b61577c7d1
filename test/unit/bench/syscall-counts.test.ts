import { describe, expect, it } from 'vitest';
import { readStraceSummary, syscallMarkdown } from '../../../bench/lib/syscall-counts.ts';

// As strace 6.1 prints `-c -f` when it detaches: an errors column left blank where nothing failed.
const SUMMARY = `strace: Process 4242 attached with 6 threads
strace: Process 4242 detached
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 52.10    0.412345          20     20100           sendto
 40.02    0.316789          15     20102      1003 recvfrom
  7.88    0.062345          25      2400           madvise
------ ----------- ----------- --------- --------- ----------------
100.00    0.791479          18     42602      1003 total
`;

describe('readStraceSummary', () => {
  it('reads calls and errors per system call, most called first, without the total', () => {
    expect(readStraceSummary(SUMMARY)).toEqual([
      { name: 'recvfrom', calls: 20102, errors: 1003 },
      { name: 'sendto', calls: 20100, errors: 0 },
      { name: 'madvise', calls: 2400, errors: 0 },
    ]);
    expect(readStraceSummary('strace: attach: ptrace(PTRACE_SEIZE, 1): Operation not permitted\n')).toEqual([]);
  });

  it('writes them per request, leaving out calls made less than once per 100 requests', () => {
    const rows = [...readStraceSummary(SUMMARY), { name: 'openat', calls: 50, errors: 0 }];
    expect(syscallMarkdown(rows, 10_000).split('\n')).toEqual([
      '| system call | per request | failed per request |',
      '|---|---:|---:|',
      '| recvfrom | 2.01 | 0.10 |',
      '| sendto | 2.01 |  |',
      '| madvise | 0.24 |  |',
      '| all | 4.27 | |',
    ]);
  });
});
