/**
 * `npm run bench:core [-- [--runtime node|bun|all] scenario,…]`: Switchyard's own work per
 * request, without sockets or other processes (bench/lib/core-probe.ts). Bytes allocated per
 * request (Node) are exact and repeat to within ~0.5 KiB between runs, and promises per request
 * (Node) exactly, so they show a change's effect on a machine too noisy for wrk ratios; time per
 * request is the best of seven rounds.
 * On Bun the probe runs the same sources as the Bun adapter would (Bun's Request and Response) and
 * reports time only.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, which } from './lib/procs.ts';
import { pickScenarios } from './lib/scenarios.ts';
import { buildForNode, runtimeBin } from './lib/servers.ts';

// The probe counts ~300 requests of up to ~150 KB each between two collections: 128 MiB
// semi-spaces hold them with room to spare.
const NODE_FLAGS = ['--expose-gc', '--max-semi-space-size=128', '--min-semi-space-size=128'];
const PROBE = 'bench/lib/core-probe.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--runtime');
const runtimeArg = (at >= 0 ? args.splice(at, 2)[1] : undefined) ?? 'node';
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
  usPerRequest: number;
  bytesPerRequest: number | null;
  bytesOut: number;
  promisesPerRequest: number | null;
}

function runProbe(runtime: string): { version: string; lines: ProbeLine[] } {
  const bin = runtime === 'node' ? process.execPath : runtimeBin('bun');
  if (!bin) throw new Error('bench:core: bun is not installed (looked in node_modules and PATH; run npm install)');
  let command = runtime === 'node' ? [bin, ...NODE_FLAGS, join(ROOT, buildForNode(PROBE))] : [bin, 'run', PROBE];
  // Pinned like the gateway in bench/run.ts when taskset is there; the numbers do not depend on it.
  const taskset = which('taskset');
  if (taskset) command = [taskset, '-c', '0', ...command];
  const run = spawnSync(command[0]!, command.slice(1), { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CORE_PROBE_SCENARIOS: names.join(',') } });
  if (run.status !== 0) throw new Error(`bench:core: the ${runtime} probe failed:\n${run.stderr || run.stdout}`);
  const version = runtime === 'node' ? `node ${process.version}` : `bun ${spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()}`;
  return { version, lines: run.stdout.trim().split('\n').map((line) => JSON.parse(line) as ProbeLine) };
}

for (const runtime of runtimes) {
  const { version, lines } = runProbe(runtime);
  console.log(`core path per request, ${version} (${new Date().toISOString().slice(0, 10)})\n`);
  console.log('| scenario | µs per request (best of 7 × 1,000) | KiB allocated per request | answer bytes | promises per request |');
  console.log('|---|---:|---:|---:|---:|');
  for (const line of lines) {
    const kib = line.bytesPerRequest === null ? '—' : (line.bytesPerRequest / 1024).toFixed(1);
    const promises = line.promisesPerRequest === null ? '—' : line.promisesPerRequest.toFixed(1);
    console.log(`| ${line.label} | ${line.usPerRequest.toFixed(1)} | ${kib} | ${line.bytesOut.toLocaleString('en-US')} | ${promises} |`);
  }
  console.log('');
}
