import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './spawn-gateway.ts';

const run = promisify(execFile);
const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;
const hasNginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].some((path) => existsSync(path));

/** `npm run bench:instructions` stays runnable: a few requests under callgrind, a count and a breakdown. */
describe.skipIf(!hasValgrind)('bench:instructions (instructions per request under callgrind)', () => {
  it('counts a passthrough request and lists where its instructions go', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/instructions.ts', '--warm', '10', '--count', '10', '--top', '5', 'claude-anthropic-json'], { cwd: ROOT });
    const row = stdout.split('\n').find((line) => line.startsWith('| Claude → Anthropic JSON'));
    const perRequest = Number(row?.split('|')[2]!.trim().replaceAll(',', ''));
    // A request through the core path: tens of thousands of instructions at least, however cold.
    expect(perRequest).toBeGreaterThan(10_000);
    expect(stdout).toMatch(/where the instructions of a warm request go/);
    expect(stdout.split('\n').filter((line) => /^\| `.+` \| [\d,]+ \| [\d.]+% \|$/.test(line))).toHaveLength(5);
  }, 120_000);

  it('counts the core path under Bun, with its compiler and collector on the main thread', async () => {
    // Ten requests were too few under Bun: one collection or tier-up more in the shorter run than in
    // the longer one (CI saw it once) made the difference negative. Two hundred cost no more time,
    // since Bun's start under valgrind is most of it, and leave room for such a swing.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/instructions.ts', '--runtime', 'bun', '--warm', '10', '--count', '200', 'claude-anthropic-sse'], { cwd: ROOT });
    expect(stdout).toMatch(/^instructions per request, the core path, bun \d+\.\d+\.\d+, callgrind/m);
    const row = stdout.split('\n').find((line) => line.startsWith('| Claude → Anthropic SSE'));
    expect(Number(row?.split('|')[2]!.trim().replaceAll(',', ''))).toBeGreaterThan(10_000);
  }, 240_000);

  it('refuses whole servers under Bun, which it counts only on Node', async () => {
    await expect(run(process.execPath, ['--import', 'tsx', 'bench/instructions.ts', '--runtime', 'bun', '--server', 'claude-anthropic-sse'], { cwd: ROOT })).rejects.toThrow(/--server counts Node servers only/);
  });

  it.skipIf(!hasNginx)('counts whole servers, the gateway and the bare proxy, one request at a time behind nginx', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/instructions.ts', '--server', '--warm', '5', '--count', '5', '--top', '3', 'claude-anthropic-sse'], { cwd: ROOT });
    const row = stdout.split('\n').find((line) => line.startsWith('| Claude → Anthropic SSE'));
    const [gateway, bare, ratio] = row!.split('|').slice(2, 5).map((cell) => Number(cell.trim().replaceAll(',', '')));
    expect(gateway).toBeGreaterThan(10_000);
    expect(bare).toBeGreaterThan(10_000);
    expect(ratio).toBeCloseTo(bare! / gateway!, 2);
    // Functions on the stack when the counters were zeroed (main, the event loop) are left out.
    expect(stdout).not.toMatch(/\| `main` \|/);
    expect(stdout.split('\n').filter((line) => /^\| `.+` \| [\d,]+ \| [\d.]+% \|$/.test(line))).toHaveLength(6);
  }, 240_000);
});
