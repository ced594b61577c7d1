import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeBin, spawnGateway, type SpawnedGateway } from '../runtime/spawn-gateway.ts';
import { startFakeLlm, type FakeLlm } from './fake-llm.ts';
import { claudeEnv, findAgent, KIND_OF, MODELS, printedJson, rigConfig, runAgent } from './harness.ts';

/**
 * Claude Code against the Bun adapter (`bun run adapters/bun.ts`, spawned), as the other agent
 * tests run it against the Node one: a tool round trip on each upstream kind, so Bun.serve, the
 * Bun relay and the Bun adapter's upstream client carry a real agent's streams both ways.
 */
const claude = findAgent('claude');
const bun = runtimeBin('bun');
const ANSWER = 'One file in this folder is alpha.txt.';

describe.skipIf(!claude || !bun)('Claude Code through the Bun adapter', () => {
  let fake: FakeLlm;
  let gateway: SpawnedGateway;
  let root: string;

  beforeAll(async () => {
    fake = await startFakeLlm();
    gateway = await spawnGateway(bun!, ['run', 'test/runtime/fixtures/serve-bun.ts'], rigConfig(fake.url));
    root = await mkdtemp(join(tmpdir(), 'switchyard-agent-bun-'));
    await mkdir(join(root, 'work'));
    await mkdir(join(root, 'home'));
    await writeFile(join(root, 'work', 'alpha.txt'), 'hi\n');
    await writeFile(join(root, 'work', 'beta.md'), '# b\n');
  });

  afterAll(async () => {
    await Promise.all([gateway?.close(), fake?.close()]);
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it.each([MODELS.claude, MODELS.oss, MODELS.gemini3])('%s: lists the folder with Bash and Glob, then answers', async (model) => {
    const before = fake.calls.length;
    const run = await runAgent(claude!, ['-p', 'list files in this folder and tell me one name', '--no-session-persistence', '--output-format', 'json', '--allowedTools', 'Bash', 'Glob'], {
      cwd: join(root, 'work'),
      env: claudeEnv(gateway.url, join(root, 'home'), model),
    });
    const chats = fake.calls.slice(before).filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    const context = `exit ${run.code} after ${Math.round(run.ms)} ms; fake: ${chats.map((c) => `${c.kind} ${c.answer}`).join(' | ')}; rejections: ${fake.rejections.join(' | ')}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-1500)}\ngateway: ${gateway.stderr().slice(-1500)}`;
    const out = printedJson(run.stdout);
    expect(out?.result, context).toBe(ANSWER);
    expect(out.is_error, context).toBe(false);
    expect(run.code, context).toBe(0);
    const kind = KIND_OF[model]!;
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual([`${kind} tool:Bash+Glob`, `${kind} text`]);
    expect(fake.rejections, context).toEqual([]);
  }, 90_000);
});
