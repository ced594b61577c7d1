/** Reading valgrind's callgrind: its total, and its per-function counts as callgrind_annotate prints them. */

/** The instructions a callgrind run counted, from its stderr ("==pid== Collected : N"). */
export function readCollected(stderr: string): number | undefined {
  const collected = /Collected : (\d+)/.exec(stderr)?.[1];
  return collected === undefined ? undefined : Number(collected);
}

/** JIT-compiled JavaScript has no symbols: callgrind names it by address, which moves from run to run. */
export const JIT_CODE = 'JIT-compiled JavaScript';

/**
 * Self instructions by function from `callgrind_annotate --inclusive=no` output; the levels of a
 * recursion ('2) fold into one name, and every address without a symbol into JIT_CODE.
 */
export function readFunctionCounts(annotated: string): Map<string, number> {
  const byName = new Map<string, number>();
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!match || match[2]!.includes('PROGRAM TOTALS')) continue;
    const name = match[2]!
      .trim()
      .replace(/'\d+/g, '')
      .replace(/^\?\?\?:0x[0-9a-f]+ \[\?\?\?\]$/, JIT_CODE)
      .replace(/^\?\?\?:/, '')
      .replace(/ \[[^\]]*\/(node|bun|deno)\]$/, '');
    byName.set(name, (byName.get(name) ?? 0) + Number(match[1]!.replaceAll(',', '')));
  }
  return byName;
}

/** What each function took per request between two runs `count` requests apart, most first. */
export function readPerRequest(before: Map<string, number>, after: Map<string, number>, count: number): [name: string, instructions: number][] {
  return [...new Set([...before.keys(), ...after.keys()])]
    .map((name): [string, number] => [name, ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / count])
    .sort((a, b) => b[1] - a[1]);
}

/** The total of a callgrind dump file ("totals: N", or "summary: N" in older writers). */
export function readDumpTotal(dump: string): number | undefined {
  const total = /^(?:totals|summary): (\d+)/m.exec(dump)?.[1];
  return total === undefined ? undefined : Number(total);
}
