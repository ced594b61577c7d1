/**
 * `npm run bench:core [-- scenario,…]`: Switchyard's own work per request, without sockets or
 * other processes (bench/lib/core-probe.ts). Bytes allocated per request are exact and repeat to
 * the byte between runs, so they show a change's effect on a machine too noisy for wrk ratios;
 * time per request is the best of seven rounds. Node only: the count comes from V8's heap.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, which } from './lib/procs.ts';
import { pickScenarios } from './lib/scenarios.ts';
import { buildForNode } from './lib/servers.ts';

// The probe counts ~300 requests of up to ~150 KB each between two collections: 128 MiB
// semi-spaces hold them with room to spare.
const FLAGS = ['--expose-gc', '--max-semi-space-size=128', '--min-semi-space-size=128'];

const names = process.argv.slice(2).join(',').split(',').filter(Boolean);
pickScenarios(names); // an unknown name fails here, before the build
const probe = join(ROOT, buildForNode('bench/lib/core-probe.ts'));
// Pinned like the gateway in bench/run.ts when taskset is there; the numbers do not depend on it.
const taskset = which('taskset');
const [cmd, args] = taskset ? [taskset, ['-c', '0', process.execPath, ...FLAGS, probe]] : [process.execPath, [...FLAGS, probe]];
const run = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CORE_PROBE_SCENARIOS: names.join(',') } });
if (run.status !== 0) {
  console.error(run.stderr || run.stdout);
  process.exit(1);
}

interface ProbeLine {
  name: string;
  label: string;
  usPerRequest: number;
  bytesPerRequest: number;
  bytesOut: number;
}
const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as ProbeLine);
console.log(`core path per request, node ${process.version} (${new Date().toISOString().slice(0, 10)})\n`);
console.log('| scenario | µs per request (best of 7 × 1,000) | KiB allocated per request | answer bytes |');
console.log('|---|---:|---:|---:|');
for (const line of lines) {
  console.log(`| ${line.label} | ${line.usPerRequest.toFixed(1)} | ${(line.bytesPerRequest / 1024).toFixed(1)} | ${line.bytesOut.toLocaleString('en-US')} |`);
}
