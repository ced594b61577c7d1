import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../adapters/storage/open-storage.ts';
import { accountingConfig, storageContract } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'sy-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
let current = '';
const config = (path: string) => accountingConfig({ storage: { kind: 'sqlite', path }, prices: { m1: { input: 1, output: 2 } }, keyCacheTtlMs: 0 });

describe('SQLite storage on Node (better-sqlite3)', () => {
  storageContract(async (fresh) => {
    if (fresh) current = join(dir, `nested/${n++}/switchyard.db`);
    return openStorage(config(current));
  });

  it('creates the file and its directory on first start', async () => {
    const path = join(dir, 'first/start/db.sqlite');
    expect(existsSync(path)).toBe(false);
    const s = await openStorage(config(path));
    expect(s.description).toBe(`sqlite ${path} (better-sqlite3), limits in memory (this instance only)`);
    await s.close();
    expect(existsSync(path)).toBe(true);
  });

  it('accepts static configuration keys alongside stored ones', async () => {
    const s = await openStorage({ ...config(join(dir, 'static.db')), keys: [{ id: 'ops', key: 'static-key-123' }] });
    try {
      const stored = await s.keys.create({ name: 'stored' });
      expect(await s.keys.verify('static-key-123')).toEqual({ id: 'ops', models: undefined });
      expect((await s.keys.verify(stored.secret))?.id).toBe(stored.record.id);
      expect(await s.keys.verify('nope')).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
