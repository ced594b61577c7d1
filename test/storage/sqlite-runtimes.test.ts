import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runtimeBin } from '../runtime/spawn-gateway.ts';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = join(root, 'test/storage/fixtures/sqlite-keys.ts');
const dir = mkdtempSync(join(tmpdir(), 'sy-runtimes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = promisify(execFile);

const RUNTIMES: Array<[string, string, string[]]> = [
  ['bun:sqlite', runtimeBin('bun')!, [fixture]],
  ['node:sqlite', runtimeBin('deno')!, ['run', '-A', '--quiet', fixture]],
  ['better-sqlite3', process.execPath, ['--import', 'tsx', fixture]],
];

describe('SQLite key store with each runtime\'s driver', () => {
  it.each(RUNTIMES)('%s: create, verify, rotate, revoke, usage', async (driver, command, args) => {
    const path = join(dir, `${driver.replace(/\W/g, '-')}/keys.db`);
    const { stdout } = await run(command, [...args, path], { cwd: root, timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(out).toEqual({
      driver: `sqlite ${path} (${driver}), limits in memory (this instance only)`,
      secretShape: true,
      prefixMatches: true,
      verified: { id: out.expectedId, models: ['m1'], rpm: 7, budgetUsd: 1.5 },
      expectedId: out.expectedId,
      oldAfterRotate: out.expectedId,
      newAfterRotate: out.expectedId,
      secondAfterZeroGrace: null,
      reopened: out.expectedId,
      revokedAt: 'number',
      afterRevoke: null,
      listed: [{ id: out.expectedId, name: 'runtime', revoked: true }],
      usage: [{ group: 'm1', requests: 1, errors: 0, inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.000011 }],
    });
    expect(out.expectedId).toMatch(/^key_[0-9a-f]{16}$/);
  });
});
