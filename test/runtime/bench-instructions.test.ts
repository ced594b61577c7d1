import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './spawn-gateway.ts';

const run = promisify(execFile);
const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;

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
});
