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
    // Promises per request: counted exactly, more than the probe's own two, more when translating.
    const promises = rows.map((row) => Number(row.split('|')[5]!.trim()));
    expect(promises[0]).toBeGreaterThan(2);
    expect(promises[1]).toBeGreaterThan(promises[0]!);
  }, 60_000);

  it('runs the probe on Bun through the Bun adapter, counting its cells per request, with the same answers', async () => {
    const scenarios = 'claude-anthropic-sse,claude-openai-sse';
    const env = { ...process.env, CORE_PROBE_COUNTS: '20,2,20,20' };
    const [bun, node] = await Promise.all([
      run(process.execPath, ['--import', 'tsx', 'bench/core.ts', '--runtime', 'bun', scenarios], { cwd: ROOT, env }),
      run(process.execPath, ['--import', 'tsx', 'bench/core.ts', scenarios], { cwd: ROOT, env }),
    ]);
    expect(bun.stdout).toMatch(/core path per request, bun \d+\.\d+/);
    const rowsOf = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('| Claude')).map((row) => row.split('|').slice(2, 5).map((cell) => cell.trim()));
    const rows = rowsOf(bun.stdout);
    expect(rows).toHaveLength(2);
    expect(bun.stdout).toMatch(/\| objects \(closures\) per request \|/);
    const census = rows.map(([us, made]) => {
      expect(Number(us)).toBeGreaterThan(0);
      const [, objects, closures] = /^([\d.]+) \(([\d.]+)\)$/.exec(made!) ?? [];
      return { objects: Number(objects), closures: Number(closures) };
    });
    // A request makes cells (its parsed body, strings, promises, closures); a translated stream makes every event again.
    expect(census[0]!.objects).toBeGreaterThan(20);
    expect(census[0]!.closures).toBeGreaterThan(0);
    expect(census[1]!.objects).toBeGreaterThan(census[0]!.objects);
    const promises = bun.stdout.split('\n').filter((line) => line.startsWith('| Claude')).map((row) => Number(row.split('|')[5]!.trim()));
    for (const count of promises) expect(count).toBeGreaterThan(0);
    expect(Number(rows[0]![2]!.replaceAll(',', ''))).toBe(statSync(join(ROOT, 'bench', 'upstream', 'anthropic-stream.sse')).size);
    // Bun's Request in and Response out (writeBunResponse) give the client what the Node path gives.
    expect(rows.map((row) => row[2])).toEqual(rowsOf(node.stdout).map((row) => row[2]));
  }, 60_000);
});
