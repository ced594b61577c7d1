import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../../adapters/storage/open-storage.ts';
import { readConfig, type GatewayConfigInput } from '../../core/index.ts';
import { startTestGateway, type RunningGateway } from '../helpers/gateway.ts';
import { startFakeLlm, type FakeLlm } from './fake-llm.ts';
import { claudeEnv, findAgent, MODELS, printedJson, rigConfig, runAgent } from './harness.ts';

/**
 * Claude Code on a key its limits refuse for good: it must stop at once with the gateway's
 * message. It retries a 429 ten times over minutes unless told not to (`x-should-retry: false`),
 * which a spent budget or a request over the key's token limit warrant: asking again cannot help.
 */
const claude = findAgent('claude');
const ADMIN = 'agent-limits-admin-token';

describe.skipIf(!claude)('Claude Code on a key its limits refuse', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  async function startWithStorage(): Promise<{ gateway: RunningGateway; fake: FakeLlm }> {
    const fake = await startFakeLlm();
    open.push(fake);
    const config: GatewayConfigInput = { ...rigConfig(fake.url), prices: { [MODELS.claude]: { input: 3, output: 15 }, [MODELS.haiku]: { input: 1, output: 5 } } };
    const storage = await openStorage(readConfig({ ...config, storage: { kind: 'memory' } }));
    open.push(storage);
    const gateway = await startTestGateway(config, { keys: storage.keys, meter: storage.meter, admin: { keys: storage.keys, usage: storage.usage, admin: { token: ADMIN } } });
    open.push(gateway);
    return { gateway, fake };
  }

  async function createKey(gateway: RunningGateway, limits: Record<string, number>): Promise<string> {
    const res = await fetch(`${gateway.url}/admin/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limited', ...limits }) });
    expect(res.status).toBe(201);
    return ((await res.json()) as { secret: string }).secret;
  }

  it.each([
    ['a budget that cannot cover the call', { budgetUsd: 0.0001 }, /Budget exhausted: this API key's budget of \$0\.0001/],
    ['a token limit below the call', { tpm: 100 }, /Token limit: this API key allows 100 tokens per minute/],
  ])('%s: one call, then the message, within seconds', async (_name, limits, message) => {
    const { gateway, fake } = await startWithStorage();
    const key = await createKey(gateway, limits);
    const root = await mkdtemp(join(tmpdir(), 'switchyard-limits-'));
    open.push({ close: () => rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) });
    await mkdir(join(root, 'home'));
    const run = await runAgent(claude!, ['-p', 'say hi', '--output-format', 'json', '--no-session-persistence'], {
      cwd: root,
      env: { ...claudeEnv(gateway.url, join(root, 'home'), MODELS.claude), ANTHROPIC_API_KEY: key },
      timeoutMs: 30_000,
    });
    const calls = gateway.logs.filter((line) => line.method === 'POST' && line.path.endsWith('/v1/messages'));
    const context = `exit ${run.code} after ${run.ms} ms; gateway: ${calls.map((c) => `${c.status} ${c.error}`).join(' | ')}\n${run.stdout.slice(-800)}\n${run.stderr.slice(-800)}`;
    expect(run.timedOut, context).toBe(false);
    expect(calls.map((c) => c.status), context).toEqual([429]);
    const out = printedJson(run.stdout);
    expect(out?.is_error, context).toBe(true);
    expect(out?.result, context).toMatch(message);
    expect(fake.calls.filter((c) => c.method === 'POST'), context).toEqual([]);
  }, 40_000);
});
