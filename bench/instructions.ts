/**
 * `npm run bench:instructions [-- [--against DIR] [--top N] [--warm N] [--count N] scenario,…]`:
 * machine instructions per request on the core path (bench/lib/core-probe.ts on Node), counted
 * by valgrind's callgrind, which counts instructions rather than time: the same code and inputs
 * give the same count whatever else the machine is doing. Each scenario runs twice, `--warm`
 * requests and `--warm` + `--count`; the difference over `--count` is a warm request's cost,
 * start-up and JIT warm-up taken out. V8 runs single-threaded and predictable, with fixed hash
 * and random seeds, so two runs of the same code differ by ~0.01%.
 *
 * `--against DIR` counts another checkout's core path too (its probe, built from its tree, on this
 * tree's bodies and answers) and prints B ÷ A with A = DIR: a change's effect to a fraction of a
 * percent on a machine whose speed drifts by tens of percent. `--top N` lists the native
 * functions (V8's runtime and builtins, libc; JIT-compiled JavaScript is one line) that take the
 * most instructions per request. Needs valgrind (Debian: apt-get install -y valgrind); ~1 minute
 * per scenario and tree, two runs at once.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readCollected, readFunctionCounts, readPerRequest } from './lib/callgrind.ts';
import { ROOT, which } from './lib/procs.ts';
import { pickScenarios } from './lib/scenarios.ts';
import { buildForNode, nodeStartFlags } from './lib/servers.ts';

const PROBE = 'bench/lib/core-probe.ts';
// What makes a count repeat: no helper threads (compilation, collection) racing the main one,
// and no seed drawn at start.
const COUNT_FLAGS = ['--single-threaded', '--predictable', '--hash-seed=1', '--random-seed=1'];

interface Args {
  against?: string;
  top: number;
  warm: number;
  count: number;
  names: string[];
}

function readArgs(argv: string[]): Args {
  const args: Args = { top: 0, warm: 3000, count: 2000, names: [] };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!;
    if (!name.startsWith('--')) {
      args.names.push(...name.split(',').filter(Boolean));
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${name} needs a value`);
    if (name === '--against') args.against = resolve(value);
    else if (name === '--top' || name === '--warm' || name === '--count') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < (name === '--top' ? 0 : 1)) throw new Error(`${name}: a whole number, not "${value}"`);
      args[name.slice(2) as 'top' | 'warm' | 'count'] = n;
    } else throw new Error(`unknown option ${name}`);
  }
  return args;
}

interface Counted {
  instructions: number;
  outFile: string;
}

/** One probe run of `requests` warm-up requests of one scenario under callgrind. */
function countRun(probe: string, scenario: string, requests: number, outFile: string): Promise<Counted> {
  const args = ['--tool=callgrind', `--callgrind-out-file=${outFile}`, process.execPath, ...nodeStartFlags(), ...COUNT_FLAGS, probe];
  // Counts "warm,rounds,perRound": one timed round of one request, so the run is the warm-up.
  const env = { ...process.env, CORE_PROBE_SCENARIOS: scenario, CORE_PROBE_MEASURE: 'time', CORE_PROBE_COUNTS: `${requests},1,1` };
  return new Promise((done, fail) => {
    const child = spawn('valgrind', args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', fail);
    child.once('close', (code) => {
      const instructions = readCollected(stderr);
      if (code !== 0 || instructions === undefined) fail(new Error(`valgrind ${scenario} (${requests} requests) failed (exit ${code}):\n${stderr.slice(-3000)}`));
      else done({ instructions, outFile });
    });
  });
}

/** Runs the tasks two at a time (the machine's two cores). */
async function inPairs<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

function readFunctions(outFile: string): Map<string, number> {
  const run = spawnSync('callgrind_annotate', ['--threshold=100', '--inclusive=no', outFile], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`callgrind_annotate failed: ${run.stderr}`);
  return readFunctionCounts(run.stdout);
}

function topMarkdown(warm: Counted, more: Counted, count: number, top: number): string {
  const perRequest = (more.instructions - warm.instructions) / count;
  const rows = readPerRequest(readFunctions(warm.outFile), readFunctions(more.outFile), count).slice(0, top);
  const cut = (name: string) => (name.length > 110 ? `${name.slice(0, 107)}…` : name);
  return ['| function | instructions per request | share |', '|---|---:|---:|', ...rows.map(([name, n]) => `| \`${cut(name).replace(/\|/g, '\\|')}\` | ${Math.round(n).toLocaleString('en-US')} | ${((100 * n) / perRequest).toFixed(1)}% |`)].join('\n');
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  if (!which('valgrind')) throw new Error('bench:instructions needs valgrind (Debian: apt-get install -y valgrind)');
  if (args.top > 0 && !which('callgrind_annotate')) throw new Error('--top needs callgrind_annotate (it comes with valgrind)');
  const scenarios = pickScenarios(args.names);
  const trees = [...(args.against ? [{ label: 'A', probe: join(ROOT, buildForNode(join(args.against, PROBE), 'core-probe-against')) }] : []), { label: args.against ? 'B' : 'this tree', probe: join(ROOT, buildForNode(PROBE)) }];
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-instructions-'));
  try {
    const tasks = scenarios.flatMap((scenario) =>
      trees.flatMap((tree, t) => [args.warm, args.warm + args.count].map((requests) => () => countRun(tree.probe, scenario.name, requests, join(dir, `${scenario.name}-${t}-${requests}.out`)))),
    );
    const counted = await inPairs(tasks);
    const perRequest = (s: number, t: number) => (counted[(s * trees.length + t) * 2 + 1]!.instructions - counted[(s * trees.length + t) * 2]!.instructions) / args.count;
    console.log(`instructions per request on the core path, node ${process.version}, callgrind, ${args.count.toLocaleString('en-US')} requests after ${args.warm.toLocaleString('en-US')} (${new Date().toISOString().slice(0, 10)})\n`);
    const heads = trees.map((tree) => (args.against ? `${tree.label}` : 'instructions per request'));
    console.log(`| scenario | ${heads.join(' | ')}${args.against ? ' | B ÷ A' : ''} |`);
    console.log(`|---|${heads.map(() => '---:').join('|')}${args.against ? '|---:' : ''}|`);
    scenarios.forEach((scenario, s) => {
      const values = trees.map((_, t) => perRequest(s, t));
      const ratio = args.against ? ` | ${(values[1]! / values[0]!).toFixed(4)}` : '';
      console.log(`| ${scenario.label} | ${values.map((v) => Math.round(v).toLocaleString('en-US')).join(' | ')}${ratio} |`);
    });
    if (args.top > 0) {
      scenarios.forEach((scenario, s) => {
        trees.forEach((tree, t) => {
          const at = (s * trees.length + t) * 2;
          console.log(`\n${scenario.label}${args.against ? `, ${tree.label}` : ''}: where the instructions of a warm request go\n`);
          console.log(topMarkdown(counted[at]!, counted[at + 1]!, args.count, args.top));
        });
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
