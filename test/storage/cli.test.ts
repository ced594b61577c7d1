import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../adapters/storage/open-storage.ts';
import { accountingConfig } from './contract.ts';
import { spawnServer, stopServer, tsxLoader } from './fixtures/spawn-server.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sy-cli-'));
const dbPath = join(dir, 'data/cli.db');
const configPath = join(dir, 'switchyard.json');
// A full gateway configuration: the CLI reads only its storage part and needs no provider secrets.
writeFileSync(
  configPath,
  JSON.stringify({
    storage: { kind: 'sqlite', path: dbPath },
    keyCacheTtlMs: 0,
    providers: { claude: { type: 'anthropic', apiKey: '${ANTHROPIC_KEY_NOT_SET_IN_TEST}' } },
    models: [{ id: 'm', routes: [{ provider: 'claude', model: 'm' }] }],
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const execute = promisify(execFile);
async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(process.execPath, ['--import', 'tsx', 'adapters/cli.ts', ...args], { cwd: root, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('CLI against a SQLite configuration', () => {
  it('keys create shows the secret once; keys list shows the key without it', async () => {
    const created = await cli(['keys', 'create', '--name', 'x', '--config', configPath]);
    expect(created.code).toBe(0);
    const secret = /^(sy-[0-9a-f]{48})$/m.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(created.stdout).toMatch(/^created key_[0-9a-f]{16} {2}"x" {2}sy-[0-9a-f]{7}… {2}active {2}created=\S+\nsecret \(shown once, store it now\):\nsy-[0-9a-f]{48}\n$/);

    const listed = await cli(['keys', 'list'], { SWITCHYARD_CONFIG: configPath });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('"x"');
    expect(listed.stdout).toContain(`${secret!.slice(0, 10)}…`);
    expect(listed.stdout).not.toContain(secret!.slice(10));

    // The gateway's store accepts the secret the CLI printed.
    const storage = await openStorage(accountingConfig({ storage: { kind: 'sqlite', path: dbPath }, keyCacheTtlMs: 0 }));
    try {
      expect(await storage.keys.verify(secret!)).toBeDefined();
    } finally {
      await storage.close();
    }
  });

  it('create with limits, rotate and revoke, as JSON', async () => {
    const created = await cli(['--config', configPath, 'keys', 'create', '--name', 'limited', '--models', 'm', '--rpm', '60', '--tpm', '5000', '--budget', '2.5', '--expires', '2099-01-01', '--json']);
    const { key } = JSON.parse(created.stdout) as { key: Record<string, unknown> & { id: string } };
    expect(key).toEqual({ id: key.id, name: 'limited', prefix: expect.any(String), status: 'active', createdAt: expect.any(String), expiresAt: '2099-01-01T00:00:00.000Z', models: ['m'], rpm: 60, tpm: 5000, budgetUsd: 2.5 });
    const rotated = JSON.parse((await cli(['--config', configPath, 'keys', 'rotate', key.id, '--grace', '0', '--json'])).stdout) as { secret: string; key: { prefix: string } };
    expect(rotated.key.prefix).toBe(rotated.secret.slice(0, 10));
    const revoked = await cli(['--config', configPath, 'keys', 'revoke', key.id]);
    expect(revoked.stdout).toMatch(new RegExp(`^revoked ${key.id} .* revoked `));
    const usage = JSON.parse((await cli(['--config', configPath, 'usage', '--by', 'day', '--json'])).stdout);
    expect(usage).toEqual({ by: 'day', data: [] });
  });

  it('exits 1 naming an unknown key and 2 on a usage error', async () => {
    expect(await cli(['--config', configPath, 'keys', 'show', 'key_nope'])).toMatchObject({ code: 1, stdout: 'no key with id "key_nope"\n' });
    const bad = await cli(['--config', configPath, 'keys', 'create']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('keys create needs --name NAME');
    const unknown = await cli(['--config', configPath, 'keys', 'create', '--name', 'y', '--models', 'm,nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--models: no model named "nope" in the configuration');
  });
});

describe('CLI and server without any configuration (SQLite at ./data/switchyard.db)', () => {
  // A directory with no switchyard.json and no SWITCHYARD_* or provider variables: the README's first run.
  const cwd = join(dir, 'bare');
  mkdirSync(cwd);
  const env = { PATH: process.env.PATH ?? '', HOME: cwd };

  it('keys create writes ./data/switchyard.db, and a config-less server started there accepts the key', async () => {
    const created = await execute(process.execPath, ['--import', tsxLoader, join(root, 'adapters/cli.ts'), 'keys', 'create', '--name', 'x'], { cwd, env });
    const secret = /^(sy-[0-9a-f]{48})$/m.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(existsSync(join(cwd, 'data/switchyard.db'))).toBe(true);

    const { child, url, log } = await spawnServer([], { cwd, env: { ...env, SWITCHYARD_KEY: 'sy-static-key-for-the-bare-test' } });
    try {
      expect(log()).toContain(`keys and usage: sqlite ./data/switchyard.db`);
      const listed = await fetch(`${url}/api/openai/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual({ object: 'list', data: [] });
      const wrong = `${secret!.slice(0, -1)}${secret!.endsWith('0') ? '1' : '0'}`;
      expect((await fetch(`${url}/api/openai/v1/models`, { headers: { authorization: `Bearer ${wrong}` } })).status).toBe(401);
    } finally {
      expect(await stopServer(child)).toBe(0);
    }
  });
});
