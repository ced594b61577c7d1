/**
 * A/B of two source trees of the gateway on one runtime: `npm run bench:ab -- --a DIR --b DIR
 * [--runtime node|bun|deno] [--scenario NAME] [--pairs 6] [--seconds 3] [--connections 64] [--apart]
 * [--a-flags=FLAGS] [--b-flags=FLAGS]` (Node flags for one side, after `npm start`'s) [--promises]
 * (Node: promises created per request on each side, exact, instead of the CPU ratio)
 * [--a-env NAME=VALUE] [--b-env NAME=VALUE] (repeatable: one side's environment, so one tree can
 * be compared with itself, `SWITCHYARD_UPSTREAM_CLIENT=undici` on one side) [--tls] (upstream
 * calls over https, to nginx's TLS port).
 *
 * On this kind of machine a process can run 15% slower, or 2.5 times slower, than the same build
 * minutes later, so a before/after pair of runs says little (the same build against itself, run
 * one after the other: 0.75 to 1.02 over six pairs). So each pair starts A and B afresh and loads
 * both at once, on the same core, each with half the connections: whatever the machine does,
 * both get it (the same build against itself: 0.95 to 1.10 on Node, 0.985 to 1.03 on Bun). The
 * answer is the median over the pairs of B ÷ A in CPU per request of the serving process, from
 * /proc. `--apart` runs them one after the other instead, alternating which goes first; there the
 * lowest run of each side, also printed, is the steadier figure (the machine's slow spells only
 * ever raise a run). Side by side, two servers evict each other's caches, which weighs a change
 * to how much code and data a request touches more than it weighs alone (bench/README.md).
 *
 * A tree is a checkout of this repo (`git worktree add /tmp/a HEAD~1`). Node runs each tree's
 * adapters/node.ts bundled as `npm start` does, into this repo's dist/ so packages resolve here;
 * Bun runs the tree's adapters/bun.ts, with this repo's node_modules linked in when it has none.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkAnswer } from './lib/check.ts';
import { BENCH_CA } from './lib/nginx.ts';
import { findLoadTools, findScenario, startRig } from './lib/rig.ts';
import { cpuMicros, listeningPid } from './lib/proc-stats.ts';
import { median } from './lib/stats.ts';
import { launch, ROOT, runMain, stop, waitListening, type Launched } from './lib/procs.ts';
import { buildTreeForNode, linkNodeModules, runtimeCommand } from './lib/servers.ts';
import { errorCount, runWrk } from './lib/wrk.ts';

const SERVER_CPU = 0;
const LOAD_CPU = 1;
const say = (line: string) => console.error(line);

interface Side {
  name: 'A' | 'B';
  tree: string;
  cmd: string;
  args: string[];
}

interface SideRun {
  microsPerRequest: number;
  rps: number;
  /** With --promises: promises created per request while measured (exact, unlike CPU time). */
  promisesPerRequest?: number;
}

/** The preload that counts promises between two SIGUSR2 (bench/lib/promise-count.mjs). */
const PROMISE_COUNT = join(ROOT, 'bench', 'lib', 'promise-count.mjs');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      a: { type: 'string' },
      b: { type: 'string' },
      runtime: { type: 'string', default: 'node' },
      scenario: { type: 'string', default: 'claude-anthropic-sse' },
      pairs: { type: 'string', default: '6' },
      seconds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '64' },
      apart: { type: 'boolean', default: false },
      'a-flags': { type: 'string', default: '' },
      'b-flags': { type: 'string', default: '' },
      promises: { type: 'boolean', default: false },
      'a-env': { type: 'string', multiple: true, default: [] },
      'b-env': { type: 'string', multiple: true, default: [] },
      tls: { type: 'boolean', default: false },
    },
  });
  if (!values.a || !values.b) throw new Error('usage: npm run bench:ab -- --a DIR --b DIR [--runtime node|bun|deno] [--scenario NAME] [--pairs N] [--seconds S] [--a-flags=FLAGS] [--b-flags=FLAGS] [--promises] [--a-env NAME=VALUE] [--b-env NAME=VALUE] [--tls]');
  if (values.runtime !== 'node' && (values['a-flags'] || values['b-flags'] || values.promises)) throw new Error('--a-flags, --b-flags and --promises are for Node: use them with --runtime node');
  const runtime = values.runtime;
  if (runtime !== 'node' && runtime !== 'bun' && runtime !== 'deno') throw new Error('--runtime: node, bun or deno');
  const scenario = findScenario(values.scenario);
  const { nginx, wrk } = findLoadTools('bench:ab');
  const pairs = Number(values.pairs);
  const seconds = Number(values.seconds);
  const warmup = Number(values.warmup);
  const connections = Number(values.connections);
  const together = !values.apart;
  const half = Math.max(1, Math.floor(connections / 2));

  const { dir, upstream, configPath } = await startRig('ab', nginx, LOAD_CPU, values.tls);
  const sideEnv = (name: 'A' | 'B'): Record<string, string> => {
    const env: Record<string, string> = { PORT: '0', HOST: '127.0.0.1', ...(values.tls ? { NODE_EXTRA_CA_CERTS: BENCH_CA } : {}) };
    for (const pair of values[name === 'A' ? 'a-env' : 'b-env']!) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`--${name.toLowerCase()}-env: NAME=VALUE, not "${pair}"`);
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
    return env;
  };

  const sides: Side[] = (['A', 'B'] as const).map((name) => {
    const tree = resolve(name === 'A' ? values.a! : values.b!);
    if (!existsSync(join(tree, 'adapters', `${runtime}.ts`))) throw new Error(`${tree}: no adapters/${runtime}.ts`);
    if (runtime === 'node') {
      const flags = (name === 'A' ? values['a-flags'] : values['b-flags'])!.split(' ').filter(Boolean);
      if (values.promises) flags.push('--import', PROMISE_COUNT);
      const [cmd, args] = runtimeCommand('node', buildTreeForNode(tree, `ab-${name.toLowerCase()}`), ['--config', configPath], flags);
      return { name, tree, cmd, args };
    }
    linkNodeModules(tree);
    const [cmd, args] = runtimeCommand(runtime, join(tree, 'adapters', `${runtime}.ts`), ['--config', configPath]);
    return { name, tree, cmd, args };
  });

  const start = async (side: Side) => {
    const server = launch(SERVER_CPU, side.cmd, side.args, { env: sideEnv(side.name), stdoutFile: join(dir, `access-${side.name}.log`) });
    const port = await waitListening(server, `${side.name} (${side.tree})`);
    // A side that answers errors would be measured as cheap: its answer is checked first, and a
    // run with any failed request is refused (measure).
    await checkAnswer(`http://127.0.0.1:${port}`, scenario.gatewayPath, scenario, scenario.clientFormat);
    return { server, pid: listeningPid(server.child.pid!, port), url: `http://127.0.0.1:${port}${scenario.gatewayPath}` };
  };
  const measure = async (running: Awaited<ReturnType<typeof start>>, conns: number): Promise<SideRun> => {
    if (values.promises) process.kill(running.pid, 'SIGUSR2');
    const before = cpuMicros(running.pid);
    const run = await runWrk(wrk, LOAD_CPU, running.url, scenario.name, conns, seconds);
    const used = cpuMicros(running.pid) - before;
    if (run.requests === 0) throw new Error('no request completed');
    if (errorCount(run) > 0) throw new Error(`${errorCount(run)} of ${run.requests} requests failed under load (${JSON.stringify(run.errors)}): not a comparison of working builds`);
    const measured: SideRun = { microsPerRequest: used / run.requests, rps: run.rps };
    if (values.promises) measured.promisesPerRequest = (await readPromiseCount(running.server, running.pid)) / run.requests;
    return measured;
  };
  const runPair = async (order: Side[]): Promise<Record<'A' | 'B', SideRun>> => {
    const got: Partial<Record<'A' | 'B', SideRun>> = {};
    if (together) {
      const running = await Promise.all(order.map(start));
      await Promise.all(running.map((r) => runWrk(wrk, LOAD_CPU, r.url, scenario.name, half, warmup)));
      const runs = await Promise.all(running.map((r) => measure(r, half)));
      order.forEach((side, i) => (got[side.name] = runs[i]));
      await Promise.all(running.map((r) => stop(r.server.child)));
    } else {
      for (const side of order) {
        const running = await start(side);
        await runWrk(wrk, LOAD_CPU, running.url, scenario.name, connections, warmup);
        got[side.name] = await measure(running, connections);
        await stop(running.server.child);
      }
    }
    return got as Record<'A' | 'B', SideRun>;
  };

  const envText = (name: 'A' | 'B') => values[name === 'A' ? 'a-env' : 'b-env']!.map((pair) => ` ${pair}`).join('');
  say(`ab: ${runtime}, ${scenario.name}${values.tls ? ' (upstream over TLS)' : ''}, ${pairs} pairs of ${seconds} s at ${connections} connections; A = ${sides[0]!.tree}${envText('A')}, B = ${sides[1]!.tree}${envText('B')}`);
  const ratios: number[] = [];
  const lowest = { A: Number.POSITIVE_INFINITY, B: Number.POSITIVE_INFINITY };
  const promiseCounts: Array<[number, number]> = [];
  for (let pair = 0; pair < pairs; pair++) {
    // ABBA order, so neither side is always started first.
    const order = pair % 2 === 0 ? sides : [...sides].reverse();
    const { A: a, B: b } = await runPair(order);
    ratios.push(b.microsPerRequest / a.microsPerRequest);
    lowest.A = Math.min(lowest.A, a.microsPerRequest);
    lowest.B = Math.min(lowest.B, b.microsPerRequest);
    const counts = a.promisesPerRequest === undefined ? '' : ` · promises per request A ${a.promisesPerRequest.toFixed(2)} B ${b.promisesPerRequest!.toFixed(2)}`;
    if (counts) promiseCounts.push([a.promisesPerRequest!, b.promisesPerRequest!]);
    say(`pair ${pair + 1}: A ${a.microsPerRequest.toFixed(1)} µs ${Math.round(a.rps)} req/s · B ${b.microsPerRequest.toFixed(1)} µs ${Math.round(b.rps)} req/s · B÷A ${ratios.at(-1)!.toFixed(3)}${counts}`);
  }
  const below = ratios.filter((r) => r < 1).length;
  if (promiseCounts.length) {
    // The counting hook slows every promise, so CPU is not compared in this mode.
    console.log(`promises per request, median over ${pairs} pairs: A ${median(promiseCounts.map(([x]) => x)).toFixed(2)}, B ${median(promiseCounts.map(([, y]) => y)).toFixed(2)}`);
  } else {
    console.log(`B ÷ A, CPU per request: median ${median(ratios).toFixed(3)} over ${pairs} pairs (${below} below 1); lowest B ÷ lowest A ${(lowest.B / lowest.A).toFixed(3)}`);
  }
  await stop(upstream.server.child);
}

/** Stops the count the first SIGUSR2 started and reads what the preload printed. */
async function readPromiseCount(server: Launched, pid: number): Promise<number> {
  const seen = server.stderr().split('promises: ').length;
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 5_000; waited += 20) {
    const parts = server.stderr().split('promises: ');
    if (parts.length > seen) return Number.parseInt(parts.at(-1)!, 10);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('--promises: the server printed no count (was it started with bench/lib/promise-count.mjs?)');
}

runMain(main);
