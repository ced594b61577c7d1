import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeBin, spawnGateway, type SpawnedGateway } from '../runtime/spawn-gateway.ts';
import { startFakeLlm, type FakeLlm } from './fake-llm.ts';
import { findAgent, KIND_OF, MODELS, printedJson, rigConfig, runAgent, TEST_KEY } from './harness.ts';

/**
 * Gemini CLI against the Bun adapter (`bun run adapters/bun.ts`, spawned), as gemini-cli.test.ts
 * runs it against the Node one: the Gemini passthrough and a translation to Anthropic, so the
 * Bun adapter's own upstream client carries a real agent's streams both ways.
 */
const gemini = findAgent('gemini');
const bun = runtimeBin('bun');
const ANSWER = 'One file in this folder is alpha.txt.';

describe.skipIf(!gemini || !bun)('Gemini CLI through the Bun adapter', () => {
  let fake: FakeLlm;
  let gateway: SpawnedGateway;
  let root: string;

  beforeAll(async () => {
    fake = await startFakeLlm();
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun.ts'], rigConfig(fake.url));
    root = await mkdtemp(join(tmpdir(), 'switchyard-agent-gemini-bun-'));
    await mkdir(join(root, 'work'));
    await mkdir(join(root, 'home', '.gemini'), { recursive: true });
    await writeFile(join(root, 'work', 'alpha.txt'), 'hi\n');
    await writeFile(join(root, 'work', 'beta.md'), '# b\n');
    // As in gemini-cli.test.ts: name the API-key method, which headless mode needs with a base URL.
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    };
    await writeFile(join(root, 'home', '.gemini', 'settings.json'), JSON.stringify(settings));
  });

  afterAll(async () => {
    await Promise.all([gateway?.close(), fake?.close()]);
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it.each([MODELS.gemini3, MODELS.claude])('%s: lists the folder with list_directory and glob, then answers', async (model) => {
    const before = fake.calls.length;
    const run = await runAgent(gemini!, ['-m', `acme.${model}`, '-p', 'list files in this folder and tell me one name', '--output-format', 'json', '--skip-trust'], {
      cwd: join(root, 'work'),
      env: { HOME: join(root, 'home'), GEMINI_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: `${gateway.url}/api/gemini` },
    });
    const chats = fake.calls.slice(before).filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    const context = `exit ${run.code} after ${Math.round(run.ms)} ms; fake: ${chats.map((c) => `${c.kind} ${c.answer}`).join(' | ')}; rejections: ${fake.rejections.join(' | ')}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-1500)}\ngateway: ${gateway.stderr().slice(-1500)}`;
    const out = printedJson(run.stdout);
    expect(out?.response, context).toBe(ANSWER);
    expect(out.error, context).toBeUndefined();
    expect(run.code, context).toBe(0);
    expect(Object.keys(out.stats?.tools?.byName ?? {}).sort(), context).toEqual(['glob', 'list_directory']);
    const kind = KIND_OF[model]!;
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual([`${kind} tool:list_directory+glob`, `${kind} text`]);
    expect(fake.rejections, context).toEqual([]);
  }, 60_000);
});
