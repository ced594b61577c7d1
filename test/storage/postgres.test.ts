import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../adapters/storage/open-storage.ts';
import { accountingConfig, storageContract } from './contract.ts';

export const PG_URL = process.env.SWITCHYARD_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = `sy_test_${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];
let n = 0;
let current = '';

const config = (schema: string) => accountingConfig({ storage: { kind: 'postgres', url: PG_URL, schema, maxConnections: 4 }, prices: { m1: { input: 1, output: 2 } }, keyCacheTtlMs: 0 });

afterAll(async () => {
  const sql = postgres(PG_URL, { onnotice: () => {} });
  for (const schema of schemas) await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await sql.end();
});

describe('PostgreSQL key and usage store', () => {
  storageContract(async (fresh) => {
    if (fresh) schemas.push((current = `${run}_${n++}`));
    return openStorage(config(current));
  });

  it('instances starting together create the schema once, without racing', async () => {
    const schema = `${run}_race`;
    schemas.push(schema);
    const opened = await Promise.all([0, 1, 2].map(() => openStorage(config(schema))));
    const { secret, record } = await opened[0]!.keys.create({ name: 'shared' });
    for (const s of opened) expect((await s.keys.verify(secret))?.id).toBe(record.id);
    await Promise.all(opened.map((s) => s.close()));
  });
});
