import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { openStorage } from '../../adapters/storage/open-storage.ts';
import { readConfig, type GatewayConfigInput } from '../../core/index.ts';
import { startTestGateway, type RunningGateway } from '../helpers/gateway.ts';
import { startFakeLlm, type FakeLlm } from './fake-llm.ts';
import { MODELS, rigConfig } from './harness.ts';

const ADMIN = 'agent-limits-admin-token';

/** A gateway in front of the fake model with key storage and the admin API, so a test can make a key with limits. */
export interface LimitsRig {
  gateway: RunningGateway;
  fake: FakeLlm;
  /** A temp folder for the agent to work in and, at `home`, a HOME that reads no user settings. */
  root: string;
  home: string;
  createKey(limits: Record<string, number>): Promise<string>;
  close(): Promise<void>;
}

export async function startLimitsRig(): Promise<LimitsRig> {
  const open: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  };
  try {
    const fake = await startFakeLlm();
    open.push(fake);
    const prices = { [MODELS.claude]: { input: 3, output: 15 }, [MODELS.haiku]: { input: 1, output: 5 }, [MODELS.gemini25]: { input: 0.3, output: 2.5 } };
    const config: GatewayConfigInput = { ...rigConfig(fake.url), prices };
    const storage = await openStorage(readConfig({ ...config, storage: { kind: 'memory' } }));
    open.push(storage);
    const gateway = await startTestGateway(config, { keys: storage.keys, meter: storage.meter, admin: { keys: storage.keys, usage: storage.usage, admin: { token: ADMIN } } });
    open.push(gateway);
    const root = await mkdtemp(join(tmpdir(), 'switchyard-limits-'));
    open.push({ close: () => rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) });
    const home = join(root, 'home');
    await mkdir(home);
    const createKey = async (limits: Record<string, number>) => {
      const res = await fetch(`${gateway.url}/admin/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limited', ...limits }) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { secret: string }).secret;
    };
    return { gateway, fake, root, home, createKey, close };
  } catch (err) {
    await close();
    throw err;
  }
}
