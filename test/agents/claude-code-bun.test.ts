import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeBin, type SpawnedGateway } from '../runtime/spawn-gateway.ts';
import { SEARCH_PAGES } from './fake-llm.ts';
import { claudeEnv, describeSpawnedRun, findAgent, KIND_OF, MODELS, printedJson, runAgent, startBunRig, type Rig } from './harness.ts';

/**
 * Claude Code against the Bun adapter (`bun run adapters/bun.ts`, spawned), as the other agent
 * tests run it against the Node one: a tool round trip on each upstream kind, so Bun.serve, the
 * Bun relay and the Bun adapter's upstream client carry a real agent's streams both ways; and
 * WebSearch on Gemini 3, whose search blocks are written after the streamed text.
 */
const claude = findAgent('claude');
const bun = runtimeBin('bun');
const ANSWER = 'One file in this folder is alpha.txt.';

describe.skipIf(!claude || !bun)('Claude Code through the Bun adapter', () => {
  let rig: Rig<SpawnedGateway>;

  beforeAll(async () => {
    rig = await startBunRig(bun!);
  });

  afterAll(() => rig?.close());

  it.each([MODELS.claude, MODELS.oss, MODELS.gemini3])('%s: lists the folder with Bash and Glob, then answers', async (model) => {
    const before = rig.fake.calls.length;
    const run = await runAgent(claude!, ['-p', 'list files in this folder and tell me one name', '--no-session-persistence', '--output-format', 'json', '--allowedTools', 'Bash', 'Glob'], {
      cwd: rig.workdir,
      env: claudeEnv(rig.gateway.url, rig.home, model),
    });
    const chats = rig.fake.calls.slice(before).filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    const context = describeSpawnedRun(rig, run, chats);
    const out = printedJson(run.stdout);
    expect(out?.result, context).toBe(ANSWER);
    expect(out.is_error, context).toBe(false);
    expect(run.code, context).toBe(0);
    const kind = KIND_OF[model]!;
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual([`${kind} tool:Bash+Glob`, `${kind} text`]);
    expect(rig.fake.rejections, context).toEqual([]);
  }, 90_000);

  it(`${MODELS.gemini3}: WebSearch runs as Google Search and its pages reach the model`, async () => {
    const before = rig.fake.calls.length;
    const run = await runAgent(claude!, ['-p', 'search the web for who won euro 2024', '--no-session-persistence', '--output-format', 'json', '--allowedTools', 'WebSearch'], {
      cwd: rig.workdir,
      env: claudeEnv(rig.gateway.url, rig.home, MODELS.gemini3),
    });
    const chats = rig.fake.calls.slice(before).filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    const context = describeSpawnedRun(rig, run, chats);
    expect(printedJson(run.stdout)?.result, context).toBe(`The first page found was ${SEARCH_PAGES[0]}.`);
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual(['gemini tool:ToolSearch', 'gemini tool:WebSearch', 'gemini search', 'gemini text']);
    expect(rig.fake.rejections, context).toEqual([]);
  }, 90_000);
});
