import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PRELOAD = fileURLToPath(new URL('../../../bench/lib/promise-count.mjs', import.meta.url));

describe('bench/lib/promise-count.mjs (bench:ab --promises)', () => {
  it('counts the promises made between two SIGUSR2 signals, and none outside them', async () => {
    // The child makes 1,000 promises once told to ("go" on stdin), after 500
    // made before counting began.
    const script = `
      for (let i = 0; i < 500; i++) new Promise((resolve) => resolve(i));
      process.stdout.write('ready\\n');
      process.stdin.once('data', () => {
        for (let i = 0; i < 1000; i++) new Promise((resolve) => resolve(i));
        process.stdout.write('made\\n');
      });`;
    const child = spawn(process.execPath, ['--import', PRELOAD, '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const until = async (test: () => boolean) => {
      while (!test()) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    await until(() => out.includes('ready'));
    child.kill('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.stdin.write('go\n');
    await until(() => out.includes('made'));
    child.kill('SIGUSR2');
    await until(() => err.includes('promises:'));
    child.kill();
    const counted = Number(/promises: (\d+)/.exec(err)![1]);
    // The 1,000 made while counting, plus the few the stream machinery makes around them.
    expect(counted).toBeGreaterThanOrEqual(1000);
    expect(counted).toBeLessThan(1100);
  });
});
