/**
 * `npm run bench:warm -- [--runtime node|bun] [--scenario NAME] [--windows 15] [--seconds 2]
 * [--connections 64]`: how long the gateway and the bare proxy take to reach their steady cost
 * after start. Both are started fresh on one core and loaded at once from the other, half the
 * connections each (as `npm run bench:ab` loads two builds), in consecutive windows; each window
 * prints CPU per request of both and gateway ÷ bare. Loaded together, both see whatever the
 * machine does, so the ratio's course is the two processes warming up (JIT compilation, memory
 * first touched), not the machine drifting. A column apart shows the gateway's JIT compiler threads
 * (`compilerMicros`), which share its pinned core.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { findLoadTools, findScenario, startRig } from './lib/rig.ts';
import { compilerMicros, cpuMicros, threadCpu } from './lib/proc-stats.ts';
import { runMain, stopAll } from './lib/procs.ts';
import { startServer } from './lib/servers.ts';
import { runWrk } from './lib/wrk.ts';

const SERVER_CPU = 0;
const LOAD_CPU = 1;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runtime: { type: 'string', default: 'node' },
      scenario: { type: 'string', default: 'claude-anthropic-json' },
      windows: { type: 'string', default: '15' },
      seconds: { type: 'string', default: '2' },
      connections: { type: 'string', default: '64' },
    },
  });
  const runtime = values.runtime;
  if (runtime !== 'node' && runtime !== 'bun' && runtime !== 'deno') throw new Error('--runtime: node, bun or deno');
  const scenario = findScenario(values.scenario);
  const { nginx, wrk } = findLoadTools('bench:warm');
  const windows = Number(values.windows);
  const seconds = Number(values.seconds);
  const half = Math.max(1, Math.floor(Number(values.connections) / 2));

  const { dir, upstream, configPath } = await startRig('warm', nginx, LOAD_CPU);
  const bare = await startServer({ name: 'bare', runtime, entry: `bench/bare-proxy-${runtime}.ts`, cpu: SERVER_CPU, env: { UPSTREAM: `http://127.0.0.1:${upstream.port}` } });
  const gateway = await startServer({ name: 'gateway', runtime, entry: `adapters/${runtime}.ts`, args: ['--config', configPath], cpu: SERVER_CPU, env: {}, stdoutFile: join(dir, 'access.log') });
  const targets = [
    { pid: bare.pid, url: `http://127.0.0.1:${bare.port}${scenario.upstreamPath}` },
    { pid: gateway.pid, url: `http://127.0.0.1:${gateway.port}${scenario.gatewayPath}` },
  ];
  console.log(`warm: ${runtime}, ${scenario.name}, ${windows} windows of ${seconds} s, ${half} connections each, both fresh and loaded at once`);
  console.log("| since start of load | bare µs/req | gateway µs/req | of it, the gateway's JIT compiler threads | gateway ÷ bare |");
  console.log('|---:|---:|---:|---:|---:|');
  for (let w = 1; w <= windows; w++) {
    const before = targets.map((t) => cpuMicros(t.pid));
    const compileBefore = compilerMicros(runtime, threadCpu(gateway.pid), gateway.pid);
    const runs = await Promise.all(targets.map((t) => runWrk(wrk, LOAD_CPU, t.url, scenario.name, half, seconds)));
    const [bareUs, gatewayUs] = targets.map((t, i) => (cpuMicros(t.pid) - before[i]!) / Math.max(1, runs[i]!.requests));
    const compileUs = (compilerMicros(runtime, threadCpu(gateway.pid), gateway.pid) - compileBefore) / Math.max(1, runs[1]!.requests);
    console.log(`| ${w * seconds} s | ${bareUs!.toFixed(0)} | ${gatewayUs!.toFixed(0)} | ${compileUs.toFixed(1)} | ${(gatewayUs! / bareUs!).toFixed(3)} |`);
  }
  await stopAll();
}

runMain(main);
