/**
 * `npm run bench:count -- [--runtime bun|node] [--requests 400,1200] [--a DIR --b DIR] [scenario,…]`:
 * machine instructions per request of the core path (bench/lib/core-probe.ts), counted by
 * valgrind's callgrind. Time on this machine swings by half between runs of the same build;
 * an instruction count does not, so a change's effect shows in one run.
 *
 * Each scenario runs in two processes, with the fewer and the more requests, and the answer is the
 * difference of their counts over the difference of their requests: start-up, and most of the
 * compiling, cancel out. The compilers run on the main thread (Bun: `useConcurrentJIT=0`; Node:
 * `--single-threaded`), so the count repeats to within ~2%. With `--a` and `--b` it counts two
 * checkouts (bench:ab's trees) and gives B ÷ A. Needs valgrind (Debian: valgrind); a Bun run of
 * 1,200 requests takes about a minute.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { perRequest as readPerRequest, readCollected } from './lib/callgrind.ts';
import { ROOT, which } from './lib/procs.ts';
import { pickScenarios } from './lib/scenarios.ts';
import { buildForNode, runtimeBin } from './lib/servers.ts';

const NODE_FLAGS = ['--single-threaded', '--max-semi-space-size=16'];
const PROBE = join('bench', 'lib', 'core-probe.ts');

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    runtime: { type: 'string', default: 'bun' },
    requests: { type: 'string', default: '400,1200' },
    a: { type: 'string' },
    b: { type: 'string' },
  },
});
const runtime = values.runtime!;
if (runtime !== 'bun' && runtime !== 'node') throw new Error(`bench:count: --runtime bun|node (got ${runtime})`);
const [fewer, more] = values.requests!.split(',').map(Number);
if (!Number.isInteger(fewer) || !Number.isInteger(more) || fewer! < 1 || more! <= fewer!) throw new Error('bench:count: --requests FEWER,MORE (e.g. 400,1200)');
if (!values.a !== !values.b) throw new Error('bench:count: --a and --b go together');
const valgrind = which('valgrind');
if (!valgrind) throw new Error('bench:count needs valgrind (Debian: apt-get install -y valgrind)');
const scenarios = pickScenarios(positionals.join(',').split(',').filter(Boolean));
const trees = values.a ? [values.a, values.b!] : [ROOT];

/** The probe's command in `tree` (another checkout's probe is bundled from there for Node). */
function probeCommand(tree: string): string[] {
  if (runtime === 'bun') {
    const bun = runtimeBin('bun');
    if (!bun) throw new Error('bench:count: bun is not installed (run npm install)');
    return [bun, 'run', join(tree, PROBE)];
  }
  return [process.execPath, ...NODE_FLAGS, join(ROOT, buildForNode(join(tree, PROBE), `count-probe-${trees.indexOf(tree)}`))];
}

/** Instructions the whole probe process ran for `requests` requests of `scenario`. */
function countRun(command: string[], tree: string, scenario: string, requests: number): Promise<number> {
  // JIT code is written at run time: valgrind must look for changed code outside mapped files.
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', '--smc-check=all-non-file', ...command];
  const env = { ...process.env, CORE_PROBE_SCENARIOS: scenario, CORE_PROBE_REQUESTS: String(requests), BUN_JSC_useConcurrentJIT: '0' };
  return new Promise((resolve, reject) => {
    const child = spawn(valgrind!, args, { cwd: tree, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err = (err + chunk).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (code) => {
      const total = readCollected(err);
      if (code !== 0 || total === undefined || !out.includes(`"requests":${requests}`)) reject(new Error(`bench:count: ${scenario} (${requests} requests) failed:\n${err.slice(-2000)}${out.slice(-500)}`));
      else resolve(total);
    });
  });
}

async function perRequest(tree: string, scenario: string): Promise<number> {
  const command = probeCommand(tree);
  const [low, high] = await Promise.all([countRun(command, tree, scenario, fewer!), countRun(command, tree, scenario, more!)]);
  return readPerRequest({ requests: fewer!, instructions: low }, { requests: more!, instructions: high });
}

const k = (n: number) => `${Math.round(n / 1000).toLocaleString('en-US')}K`;
const version = runtime === 'bun' ? `bun ${spawnSync(runtimeBin('bun') ?? 'bun', ['--version'], { encoding: 'utf8' }).stdout.trim()}` : `node ${process.version}`;
console.log(`core path, instructions per request (callgrind, requests ${fewer} → ${more}), ${version}\n`);
console.log(trees.length === 1 ? '| scenario | instructions per request |\n|---|---:|' : '| scenario | A | B | B ÷ A |\n|---|---:|---:|---:|');
for (const scenario of scenarios) {
  const counts: number[] = [];
  for (const tree of trees) counts.push(await perRequest(tree, scenario.name));
  console.log(counts.length === 1 ? `| ${scenario.label} | ${k(counts[0]!)} |` : `| ${scenario.label} | ${k(counts[0]!)} | ${k(counts[1]!)} | ${(counts[1]! / counts[0]!).toFixed(3)} |`);
}
