/**
 * `npm run bench:core [-- [--runtime node|bun|all] [--types] scenario,…]`: Switchyard's own work per
 * request, without sockets or other processes (bench/lib/core-probe.ts). Bytes allocated per
 * request (Node) are exact and repeat to within ~0.5 KiB between runs, and promises per request
 * (Node) exactly, so they show a change's effect on a machine too noisy for wrk ratios; time per
 * request is the best of seven rounds. On Node the probe runs twice: timed under `npm start`'s V8
 * flags, counted under flags that keep the counted requests out of any collection.
 * On Bun the probe runs the same sources as the Bun adapter would (Bun's Request and Response);
 * its second run counts JavaScriptCore's cells per request instead of bytes (objects, closures,
 * promises), which repeat from run to run for the same scenarios; `--types` also prints them by
 * JavaScriptCore's type names (strings, lexical environments, arrays…).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, which } from './lib/procs.ts';
import { pickScenarios } from './lib/scenarios.ts';
import { buildForNode, nodeStartFlags, readBinVersion, runtimeBin } from './lib/servers.ts';

// The probe counts ~300 requests of up to ~150 KB each between two collections: 128 MiB
// semi-spaces hold them with room to spare. Its time comes from a run with production's flags
// (see the probe's header for why not from this one).
const COUNT_FLAGS = ['--expose-gc', '--max-semi-space-size=128', '--min-semi-space-size=128'];
const PROBE = 'bench/lib/core-probe.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--runtime');
const runtimeArg = (at >= 0 ? args.splice(at, 2)[1] : undefined) ?? 'node';
const typesAt = args.indexOf('--types');
const showTypes = typesAt >= 0;
if (showTypes) args.splice(typesAt, 1);
const runtimes = runtimeArg === 'all' ? ['node', 'bun'] : [runtimeArg];
if (runtimes.some((r) => r !== 'node' && r !== 'bun')) {
  console.error(`bench:core: --runtime node|bun|all (got ${runtimeArg})`);
  process.exit(1);
}
const names = args.join(',').split(',').filter(Boolean);
pickScenarios(names); // an unknown name fails here, before any build

interface ProbeLine {
  name: string;
  label: string;
  usPerRequest: number | null;
  bytesPerRequest: number | null;
  bytesOut: number;
  promisesPerRequest: number | null;
  /** Bun: JavaScriptCore cells made per request (readBunCensus), and of them closures. */
  objectsPerRequest: number | null;
  closuresPerRequest: number | null;
  /** Bun: the cells per request by JavaScriptCore's type name, most first. */
  cellTypes: Record<string, number> | null;
}

function runProbe(runtime: string): { version: string; lines: ProbeLine[] } {
  const { version, timing, counting } = probeCommands(runtime);
  const timed = readProbeLines(runtime, timing, 'time');
  const counted = readProbeLines(runtime, counting, 'count');
  return { version, lines: counted.map((line, i) => ({ ...line, usPerRequest: timed[i]!.usPerRequest })) };
}

/** How the probe is run for its time and for its counts: on Node under different V8 flags, on Bun the same way twice. */
function probeCommands(runtime: string): { version: string; timing: string[]; counting: string[] } {
  if (runtime === 'bun') {
    const bin = runtimeBin('bun');
    if (!bin) throw new Error('bench:core: bun is not installed (looked in node_modules and PATH; run npm install)');
    return { version: `bun ${readBinVersion(bin)}`, timing: [bin, 'run', PROBE], counting: [bin, 'run', PROBE] };
  }
  const probe = join(ROOT, buildForNode(PROBE));
  return { version: `node ${process.version}`, timing: [process.execPath, ...nodeStartFlags(), probe], counting: [process.execPath, ...COUNT_FLAGS, probe] };
}

function readProbeLines(runtime: string, command: string[], measure: 'time' | 'count'): ProbeLine[] {
  // Pinned like the gateway in bench/run.ts when taskset is there; the numbers do not depend on it.
  const taskset = which('taskset');
  if (taskset) command = [taskset, '-c', '0', ...command];
  const env = { ...process.env, CORE_PROBE_SCENARIOS: names.join(','), CORE_PROBE_MEASURE: measure };
  const run = spawnSync(command[0]!, command.slice(1), { cwd: ROOT, encoding: 'utf8', env });
  if (run.status !== 0) throw new Error(`bench:core: the ${runtime} probe failed:\n${run.stderr || run.stdout}`);
  return run.stdout.trim().split('\n').map((line) => JSON.parse(line) as ProbeLine);
}

for (const runtime of runtimes) {
  const { version, lines } = runProbe(runtime);
  console.log(`core path per request, ${version} (${new Date().toISOString().slice(0, 10)})\n`);
  const census = lines.some((line) => line.objectsPerRequest !== null);
  console.log(`| scenario | µs per request (best of 7 × 1,000) | ${census ? 'objects (closures) per request' : 'KiB allocated per request'} | answer bytes | promises per request |`);
  console.log('|---|---:|---:|---:|---:|');
  for (const line of lines) {
    const made = census ? `${line.objectsPerRequest?.toFixed(1) ?? '—'} (${line.closuresPerRequest?.toFixed(1) ?? '—'})` : line.bytesPerRequest === null ? '—' : (line.bytesPerRequest / 1024).toFixed(1);
    const promises = line.promisesPerRequest === null ? '—' : line.promisesPerRequest.toFixed(1);
    console.log(`| ${line.label} | ${line.usPerRequest?.toFixed(1) ?? '—'} | ${made} | ${line.bytesOut.toLocaleString('en-US')} | ${promises} |`);
  }
  console.log('');
  if (showTypes) printCellTypes(lines);
}

/** `--types` (Bun): what the cells of each scenario are, so a change's saving can be told apart by kind. */
function printCellTypes(lines: ProbeLine[]): void {
  if (!lines.some((line) => line.cellTypes)) {
    console.log('(--types: cells by type are counted on Bun only)\n');
    return;
  }
  console.log('| scenario | cells per request by type |');
  console.log('|---|---|');
  for (const line of lines) {
    const types = Object.entries(line.cellTypes ?? {}).map(([type, n]) => `${type} ${n.toFixed(1)}`);
    console.log(`| ${line.label} | ${types.join(', ')} |`);
  }
  console.log('');
}
