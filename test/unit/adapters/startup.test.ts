import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigPath, startGateway } from '../../../adapters/startup.ts';

const quiet = { log: () => {}, logError: () => {}, defaultStorage: false };

describe('startGateway', () => {
  it('with no config file, builds one from provider variables and generates a key it shows once', async () => {
    const said: string[] = [];
    const gateway = await startGateway({ ...quiet, argv: [], env: { ANTHROPIC_API_KEY: 'a', GROQ_API_KEY: 'g' }, say: (l) => said.push(l) });
    const generated = said.find((l) => l.includes('generated this key'));
    expect(generated).toMatch(/sy-[0-9a-f]{48}/);
    expect(said.join('\n')).toContain('serving 6 model(s)');
    expect(said.join('\n')).toContain('gpt-oss-120b  ->  groq:openai/gpt-oss-120b');
    const key = /sy-[0-9a-f]{48}/.exec(generated!)![0];
    const res = await gateway.fetch(new Request('http://x/api/openai/v1/models', { headers: { authorization: `Bearer ${key}` } }));
    expect(res.status).toBe(200);
    expect((await res.json()).data).toHaveLength(6);
  });

  it('uses SWITCHYARD_KEY when set and says clearly when it serves nothing', async () => {
    const said: string[] = [];
    const gateway = await startGateway({ ...quiet, argv: [], env: { SWITCHYARD_KEY: 'sk-from-env-1' }, say: (l) => said.push(l) });
    expect(said.join('\n')).not.toContain('generated');
    expect(said.join('\n')).toContain('serving NO models');
    const res = await gateway.fetch(new Request('http://x/api/openai/v1/models', { headers: { 'x-api-key': 'sk-from-env-1' } }));
    expect(await res.json()).toEqual({ object: 'list', data: [] });
  });

  it('reads --config and SWITCHYARD_CONFIG, --config first', () => {
    expect(readConfigPath(['--config', 'a.json'])).toBe('a.json');
    expect(readConfigPath(['--config=b.json'])).toBe('b.json');
    expect(readConfigPath([])).toBeUndefined();
  });

  it('refuses a file that is not JSON, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-'));
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    await expect(startGateway({ ...quiet, argv: ['--config', join(dir, 'bad.json')], env: {}, say: () => {} })).rejects.toThrow(/bad\.json is not valid JSON/);
  });

  it('npm start with a bad config exits 1 with a message naming the bad path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ providers: { p: { type: 'openai', baseUrl: 'not a url' } }, models: [] }));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'adapters/node.ts', '--config', file], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('providers.p.baseUrl: must be an absolute URL');
    expect(run.stderr).not.toContain('    at ');
  });
});
