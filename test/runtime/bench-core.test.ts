import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './spawn-gateway.ts';

const run = promisify(execFile);

/** `npm run bench:core` stays runnable: a few requests per scenario, numbers present and plausible. */
describe('bench:core (the core path probe)', () => {
  it('measures a passthrough and a translated stream, relaying the passthrough byte for byte', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/core.ts', 'claude-anthropic-sse,claude-openai-sse'], {
      cwd: ROOT,
      env: { ...process.env, CORE_PROBE_COUNTS: '20,2,20,20' },
    });
    const rows = stdout.split('\n').filter((line) => line.startsWith('| Claude'));
    expect(rows).toHaveLength(2);
    const [pass, translated] = rows.map((row) => row.split('|').slice(2, 5).map((cell) => Number(cell.trim().replaceAll(',', ''))));
    for (const [us, kib] of [pass!, translated!]) {
      expect(us).toBeGreaterThan(0);
      expect(kib).toBeGreaterThan(1);
    }
    expect(pass![2]).toBe(statSync(join(ROOT, 'bench', 'upstream', 'anthropic-stream.sse')).size);
    // A translated stream builds every event again: it always allocates more than a relayed one.
    expect(translated![1]).toBeGreaterThan(pass![1]!);
  }, 60_000);

  it('runs the same probe on Bun, time only', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/core.ts', '--runtime', 'bun', 'claude-anthropic-sse'], {
      cwd: ROOT,
      env: { ...process.env, CORE_PROBE_COUNTS: '20,2,20,20' },
    });
    expect(stdout).toMatch(/core path per request, bun \d+\.\d+/);
    const row = stdout.split('\n').find((line) => line.startsWith('| Claude'))!;
    const [us, kib, bytes] = row.split('|').slice(2, 5).map((cell) => cell.trim());
    expect(Number(us)).toBeGreaterThan(0);
    expect(kib).toBe('—');
    expect(Number(bytes!.replaceAll(',', ''))).toBe(statSync(join(ROOT, 'bench', 'upstream', 'anthropic-stream.sse')).size);
  }, 60_000);
});
