import { describe, expect, it } from 'vitest';
import { JIT_CODE, readCollected, readDumpTotal, readFunctionCounts, readPerRequest } from '../../../bench/lib/callgrind.ts';

// As callgrind_annotate 3.19 prints `--inclusive=no` (the header cut short).
const annotated = (jit: [string, string], parse: string) => `--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
${parse} (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                     file:function
--------------------------------------------------------------------------------
${jit[0]} (12.30%)  ???:0x000000000d0b6a80 [???]
${jit[1]} ( 6.10%)  ???:0x000000000d0b9b80 [???]
${parse} ( 4.15%)  ???:v8::internal::JsonParser<unsigned char>::ScanJsonString(bool) [/usr/bin/node]
    20,000 ( 0.60%)  ???:Builtins_StringAdd_CheckNone'2 [/usr/bin/node]
    10,000 ( 0.30%)  ???:Builtins_StringAdd_CheckNone [/usr/bin/node]
     9,000 ( 0.20%)  ./string/../sysdeps/x86_64/multiarch/memchr-avx2.S:__memchr_avx2 [/usr/lib/x86_64-linux-gnu/libc.so.6]
`;

describe('callgrind readers', () => {
  it('reads the total a run counted from its stderr', () => {
    expect(readCollected('==4242== Events    : Ir\n==4242== Collected : 2444521339\n==4242==\n==4242== I   refs:      2,444,521,339\n')).toBe(2_444_521_339);
    expect(readCollected('valgrind: failed to start tool')).toBeUndefined();
  });

  it('sums self counts by function: JIT addresses into one line, recursion levels into their function', () => {
    const counts = readFunctionCounts(annotated(['1,000,000', '500,000'], '300,000'));
    expect(counts).toEqual(
      new Map([
        [JIT_CODE, 1_500_000],
        ['v8::internal::JsonParser<unsigned char>::ScanJsonString(bool)', 300_000],
        ['Builtins_StringAdd_CheckNone', 30_000],
        ['./string/../sysdeps/x86_64/multiarch/memchr-avx2.S:__memchr_avx2 [/usr/lib/x86_64-linux-gnu/libc.so.6]', 9_000],
      ]),
    );
  });

  it('takes the difference of two runs per request, most first', () => {
    const before = readFunctionCounts(annotated(['1,000,000', '500,000'], '300,000'));
    const after = readFunctionCounts(annotated(['1,400,000', '600,000'], '400,000'));
    expect(readPerRequest(before, after, 100).slice(0, 2)).toEqual([
      [JIT_CODE, 5_000],
      ['v8::internal::JsonParser<unsigned char>::ScanJsonString(bool)', 1_000],
    ]);
  });
});

describe('readDumpTotal', () => {
  it('reads the total of a dump file', () => {
    const dump = '# callgrind format\nversion: 1\ncmd:  node dist/node.mjs\npart: 1\n\nevents: Ir\nsummary: 268830000\n\nfn=(1) main\n0 5\n\ntotals: 268830000\n';
    expect(readDumpTotal(dump)).toBe(268_830_000);
    expect(readDumpTotal('# callgrind format\nversion: 1\n')).toBeUndefined();
  });
});
