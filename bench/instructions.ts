/**
 * `npm run bench:instructions [-- [--runtime node|bun] [--against DIR] [--top N] [--warm N] [--count N] scenario,…]`:
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
 *
 * `--server` counts whole Node servers instead (bench/lib/server-instructions.ts): the gateway as
 * `npm start` runs it and the bare proxy, behind the bench's nginx, one request at a time, 3,000
 * after 6,000 (`--warm`, `--count`); with `--against`, the two trees' gateways. ~8 minutes per
 * scenario, and repeatable only to ~8% (the event loop's order of events moves between runs):
 * proportions and what a request calls, not a small change's verdict.
 *
 * `--runtime bun` counts the probe under Bun instead (its Bun mode: Bun's own `Request` in,
 * `writeBunResponse` out), with JavaScriptCore's compiler and collector on the main thread
 * (BUN_JSC_useConcurrentJIT=0, BUN_JSC_useConcurrentGC=0), so that tier-ups and collections
 * happen at the same points in every run: two runs of 1,000 requests counted 669,051,445 and
 * 669,172,929 (0.02% apart). Bun's binary has no symbols, so `--top` names little there.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readCollected, readFunctionCounts, readPerRequest } from './lib/callgrind.ts';
import { gatewayConfig } from './lib/gateway-config.ts';
import { startNginx } from './lib/nginx.ts';
import { installCleanup, onExit, ROOT, runMain, stop, stopAll, which } from './lib/procs.ts';
import { pickScenarios, type Scenario } from './lib/scenarios.ts';
import { countServer } from './lib/server-instructions.ts';
import { buildForNode, buildTreeForNode, linkNodeModules, nodeStartFlags, readBinVersion, runtimeBin } from './lib/servers.ts';

const PROBE = 'bench/lib/core-probe.ts';
// What makes a count repeat: no helper threads (compilation, collection) racing the main one,
// and no seed drawn at start.
const COUNT_FLAGS = ['--single-threaded', '--predictable', '--hash-seed=1', '--random-seed=1'];
/** The same for JavaScriptCore: compilations and collections on the main thread, where they run at the same points every time. */
const BUN_COUNT_ENV = { BUN_JSC_useConcurrentJIT: '0', BUN_JSC_useConcurrentGC: '0' };

interface Args {
  runtime: 'node' | 'bun';
  against?: string;
  /** Whole servers (gateway and bare proxy) instead of the core path. */
  server: boolean;
  top: number;
  warm: number;
  count: number;
  serverWarm: number;
  serverCount: number;
  names: string[];
}

function readArgs(argv: string[]): Args {
  const args: Args = { runtime: 'node', server: false, top: 0, warm: 3000, count: 2000, serverWarm: 6000, serverCount: 3000, names: [] };
  let warmGiven = false;
  let countGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!;
    if (name === '--server') {
      args.server = true;
      continue;
    }
    if (!name.startsWith('--')) {
      args.names.push(...name.split(',').filter(Boolean));
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${name} needs a value`);
    if (name === '--against') args.against = resolve(value);
    else if (name === '--runtime') {
      if (value !== 'node' && value !== 'bun') throw new Error(`--runtime: node or bun, not "${value}"`);
      args.runtime = value;
    }
    else if (name === '--top' || name === '--warm' || name === '--count') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < (name === '--top' ? 0 : 1)) throw new Error(`${name}: a whole number, not "${value}"`);
      args[name.slice(2) as 'top' | 'warm' | 'count'] = n;
      warmGiven ||= name === '--warm';
      countGiven ||= name === '--count';
    } else throw new Error(`unknown option ${name}`);
  }
  if (args.server && args.runtime !== 'node') throw new Error('--server counts Node servers only');
  if (warmGiven) args.serverWarm = args.warm;
  if (countGiven) args.serverCount = args.count;
  return args;
}

interface Counted {
  instructions: number;
  outFile: string;
}

/** How a probe is started: a Node bundle, or a tree's TypeScript source under Bun. */
interface Probe {
  command: string[];
  env: Record<string, string>;
}

/** One probe run of `requests` warm-up requests of one scenario under callgrind. */
function countRun(probe: Probe, scenario: string, requests: number, outFile: string): Promise<Counted> {
  const args = ['--tool=callgrind', `--callgrind-out-file=${outFile}`, ...probe.command];
  // Counts "warm,rounds,perRound": one timed round of one request, so the run is the warm-up.
  const env = { ...process.env, ...probe.env, CORE_PROBE_SCENARIOS: scenario, CORE_PROBE_MEASURE: 'time', CORE_PROBE_COUNTS: `${requests},1,1` };
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

interface Column {
  label: string;
  perRequest: number;
  /** Instructions per request by native function, most first (read only for --top). */
  functions: () => [name: string, instructions: number][];
}

function topMarkdown(column: Column, top: number): string {
  const rows = column.functions().slice(0, top);
  const cut = (name: string) => (name.length > 110 ? `${name.slice(0, 107)}…` : name);
  return ['| function | instructions per request | share |', '|---|---:|---:|', ...rows.map(([name, n]) => `| \`${cut(name).replace(/\|/g, '\\|')}\` | ${Math.round(n).toLocaleString('en-US')} | ${((100 * n) / column.perRequest).toFixed(1)}% |`)].join('\n');
}

/**
 * A tree's probe. On Node it is bundled into this repo's dist/; under Bun the tree's source runs as
 * it is (with this repo's node_modules linked in when it has none), from this repo's directory, so
 * both trees read the same bodies and answers.
 */
function probeOf(runtime: Args['runtime'], tree: string, name: string): Probe {
  if (runtime === 'node') return { command: [process.execPath, ...nodeStartFlags(), ...COUNT_FLAGS, join(ROOT, buildForNode(join(tree, PROBE), name))], env: {} };
  const bun = runtimeBin('bun');
  if (!bun) throw new Error('--runtime bun: bun is not installed (run npm install)');
  linkNodeModules(tree);
  // valgrind runs the binary itself, not the node_modules/.bin link to it.
  return { command: [realpathSync(bun), 'run', join(tree, PROBE)], env: BUN_COUNT_ENV };
}

/** The core path alone: each tree's probe, `warm` and `warm + count` requests, per scenario. */
async function countProbes(args: Args, scenarios: Scenario[], dir: string): Promise<Column[][]> {
  const trees = [
    ...(args.against ? [{ label: 'A', probe: probeOf(args.runtime, args.against, 'core-probe-against') }] : []),
    { label: args.against ? 'B' : 'instructions per request', probe: probeOf(args.runtime, ROOT, 'core-probe') },
  ];
  const tasks = scenarios.flatMap((scenario) =>
    trees.flatMap((tree, t) => [args.warm, args.warm + args.count].map((requests) => () => countRun(tree.probe, scenario.name, requests, join(dir, `${scenario.name}-${t}-${requests}.out`)))),
  );
  const counted = await inPairs(tasks);
  return scenarios.map((_, s) =>
    trees.map((tree, t) => {
      const [warm, more] = [counted[(s * trees.length + t) * 2]!, counted[(s * trees.length + t) * 2 + 1]!];
      return { label: tree.label, perRequest: (more.instructions - warm.instructions) / args.count, functions: () => readPerRequest(readFunctions(warm.outFile), readFunctions(more.outFile), args.count) };
    }),
  );
}

/**
 * Whole Node servers, one request at a time behind nginx: the gateway and the bare proxy, or with
 * --against the other tree's gateway and this one's.
 */
async function countServers(args: Args, scenarios: Scenario[], dir: string): Promise<Column[][]> {
  const nginx = which('nginx', ['/usr/sbin/nginx']);
  if (!nginx) throw new Error('--server needs nginx (Debian: apt-get install -y nginx)');
  // The bench's nginx; nothing here asks its /drip/ paths, so their upstream port is left closed.
  const upstream = await startNginx(nginx, join(dir, 'nginx'), 1, 9);
  const config = join(dir, 'switchyard.json');
  writeFileSync(config, JSON.stringify(gatewayConfig(upstream.port, 'memory')));
  const node = (entry: string) => [process.execPath, ...nodeStartFlags(), ...COUNT_FLAGS, join(ROOT, entry)];
  const servers = [
    ...(args.against ? [{ label: 'A', command: [...node(buildTreeForNode(args.against, 'node-against')), '--config', config], bare: false }] : []),
    { label: args.against ? 'B' : 'gateway', command: [...node(buildForNode('adapters/node.ts')), '--config', config], bare: false },
    ...(args.against ? [] : [{ label: 'bare proxy', command: node(buildForNode('bench/bare-proxy-node.ts')), bare: true }]),
  ];
  const columns: Column[][] = [];
  for (const scenario of scenarios) {
    const counted = await Promise.all(
      servers.map((server, i) =>
        countServer({ cpu: i % 2, command: server.command, env: { UPSTREAM: `http://127.0.0.1:${upstream.port}` }, dir, name: `${scenario.name}-${i}`, scenario, path: server.bare ? scenario.upstreamPath : scenario.gatewayPath, warm: args.serverWarm, count: args.serverCount }),
      ),
    );
    columns.push(servers.map((server, i) => ({ label: server.label, perRequest: counted[i]!.instructions, functions: () => readWindow(readFunctions(counted[i]!.outFile), args.serverCount, counted[i]!.instructions) })));
  }
  await stop(upstream.server.child);
  return columns;
}

/**
 * A dump of a window that started mid-run: callgrind_annotate gives the functions that were on the
 * stack when the counters were zeroed (main, the event loop) the whole window as their own cost.
 */
function readWindow(functions: Map<string, number>, count: number, perRequest: number): [string, number][] {
  return readPerRequest(new Map(), functions, count).filter(([, n]) => n < 0.9 * perRequest);
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  if (!which('valgrind')) throw new Error('bench:instructions needs valgrind (Debian: apt-get install -y valgrind)');
  if (args.top > 0 && !which('callgrind_annotate')) throw new Error('--top needs callgrind_annotate (it comes with valgrind)');
  const scenarios = pickScenarios(args.names);
  installCleanup();
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-instructions-'));
  chmodSync(dir, 0o711);
  onExit(() => rmSync(dir, { recursive: true, force: true }));
  const columns = args.server ? await countServers(args, scenarios, dir) : await countProbes(args, scenarios, dir);
  const [warm, count] = args.server ? [args.serverWarm, args.serverCount] : [args.warm, args.count];
  const what = args.server ? 'whole Node servers, one request at a time behind nginx' : 'the core path';
  const version = args.runtime === 'bun' ? `bun ${readBinVersion(runtimeBin('bun')!)}` : `node ${process.version}`;
  console.log(`instructions per request, ${what}, ${version}, callgrind, ${count.toLocaleString('en-US')} requests after ${warm.toLocaleString('en-US')} (${new Date().toISOString().slice(0, 10)})\n`);
  const labels = columns[0]!.map((c) => c.label);
  const ratio = args.against ? 'B ÷ A' : args.server ? 'bare ÷ gateway' : undefined;
  console.log(`| scenario | ${labels.join(' | ')}${ratio ? ` | ${ratio}` : ''} |`);
  console.log(`|---|${labels.map(() => '---:').join('|')}${ratio ? '|---:' : ''}|`);
  scenarios.forEach((scenario, s) => {
    const values = columns[s]!.map((c) => c.perRequest);
    const cell = ratio ? ` | ${(values[1]! / values[0]!).toFixed(4)}` : '';
    console.log(`| ${scenario.label} | ${values.map((v) => Math.round(v).toLocaleString('en-US')).join(' | ')}${cell} |`);
  });
  if (args.top > 0) {
    scenarios.forEach((scenario, s) => {
      for (const column of columns[s]!) {
        console.log(`\n${scenario.label}${columns[s]!.length > 1 ? `, ${column.label}` : ''}: where the instructions of a warm request go\n`);
        console.log(topMarkdown(column, args.top));
      }
    });
  }
  await stopAll();
}

runMain(main);
