/**
 * JavaScriptCore's JITDump file (`BUN_JSC_useJITDump=1`) as a perf map. perf's own `perf inject
 * --jit` only accepts files named `jit-<pid>.dump`; JSC names its file `jit-<tid>-<pid>.dump`, so
 * inject skips it and every JavaScript frame stays an unnamed address. A perf map
 * (`/tmp/perf-<pid>.map`, "start size name" per line, hex) is read by `perf script` directly.
 *
 * Format (linux tools/perf/Documentation/jitdump-specification.txt): a header whose third u32 is
 * its size, then records of { id u32, total_size u32, timestamp u64, body }; a JIT_CODE_LOAD
 * (id 0) body is { pid u32, tid u32, vma u64, code_addr u64, code_size u64, code_index u64,
 * name (NUL-terminated), code }. Little-endian, as written on x86-64 and arm64.
 */
export interface JitSymbol {
  address: bigint;
  size: bigint;
  name: string;
}

const JITDUMP_MAGIC = 0x4a695444; // "JiTD"
const CODE_LOAD = 0;
const RECORD_HEADER = 16;
const LOAD_FIXED = 40;

export function readJitDump(bytes: Uint8Array): JitSymbol[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || view.getUint32(0, true) !== JITDUMP_MAGIC) throw new Error('not a JITDump file (magic "JiTD" missing)');
  const decoder = new TextDecoder();
  const symbols: JitSymbol[] = [];
  let at = view.getUint32(8, true);
  while (at + RECORD_HEADER <= bytes.byteLength) {
    const id = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    // A record cut by a process killed mid-write ends the file.
    if (size < RECORD_HEADER || at + size > bytes.byteLength) break;
    if (id === CODE_LOAD && size >= RECORD_HEADER + LOAD_FIXED) {
      const body = at + RECORD_HEADER;
      const nameStart = body + LOAD_FIXED;
      const nameEnd = bytes.indexOf(0, nameStart);
      if (nameEnd !== -1 && nameEnd < at + size) {
        symbols.push({
          address: view.getBigUint64(body + 16, true),
          size: view.getBigUint64(body + 24, true),
          name: decoder.decode(bytes.subarray(nameStart, nameEnd)),
        });
      }
    }
    at += size;
  }
  return symbols;
}

/** perf map text: one "start size name" line per symbol, addresses in hex without 0x. */
export function writePerfMap(symbols: readonly JitSymbol[]): string {
  return symbols.map((s) => `${s.address.toString(16)} ${s.size.toString(16)} ${s.name}\n`).join('');
}
