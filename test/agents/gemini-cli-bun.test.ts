import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeBin, type SpawnedGateway } from '../runtime/spawn-gateway.ts';
import { describeSpawnedRun, findAgent, KIND_OF, MODELS, printedJson, runAgent, startBunRig, TEST_KEY, writeGeminiSettings, type Rig } from './harness.ts';

/**
 * Gemini CLI against the Bun adapter (`bun run adapters/bun.ts`, spawned), as gemini-cli.test.ts
 * runs it against the Node one: the Gemini passthrough and a translation to Anthropic, so the
 * Bun adapter's own upstream client carries a real agent's streams both ways.
 */
const gemini = findAgent('gemini');
const bun = runtimeBin('bun');
const ANSWER = 'One file in this folder is alpha.txt.';

describe.skipIf(!gemini || !bun)('Gemini CLI through the Bun adapter', () => {
  let rig: Rig<SpawnedGateway>;

  beforeAll(async () => {
    rig = await startBunRig(bun!);
    await writeGeminiSettings(rig.home);
  });

  afterAll(() => rig?.close());

  it.each([MODELS.gemini3, MODELS.claude])('%s: lists the folder with list_directory and glob, then answers', async (model) => {
    const before = rig.fake.calls.length;
    const run = await runAgent(gemini!, ['-m', `acme.${model}`, '-p', 'list files in this folder and tell me one name', '--output-format', 'json', '--skip-trust'], {
      cwd: rig.workdir,
      env: { HOME: rig.home, GEMINI_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: `${rig.gateway.url}/api/gemini` },
    });
    const chats = rig.fake.calls.slice(before).filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    const context = describeSpawnedRun(rig, run, chats);
    const out = printedJson(run.stdout);
    expect(out?.response, context).toBe(ANSWER);
    expect(out.error, context).toBeUndefined();
    expect(run.code, context).toBe(0);
    expect(Object.keys(out.stats?.tools?.byName ?? {}).sort(), context).toEqual(['glob', 'list_directory']);
    const kind = KIND_OF[model]!;
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual([`${kind} tool:list_directory+glob`, `${kind} text`]);
    expect(rig.fake.rejections, context).toEqual([]);
  }, 60_000);
});
