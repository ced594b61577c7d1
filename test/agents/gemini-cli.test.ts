import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEARCH_ANSWER, SEARCH_PAGES } from './fake-llm.ts';
import { describeRun, findAgent, KIND_OF, MODELS, printedJson, runAgent, startRig, TEST_KEY, writeGeminiSettings, type Rig } from './harness.ts';

/**
 * Gemini CLI, run the way a user runs it against a gateway (`gemini -m … -p … --output-format
 * json` with GOOGLE_GEMINI_BASE_URL and a Switchyard key as GEMINI_API_KEY), over each upstream
 * kind. The fake model answers "list files" with a parallel list_directory + glob call, then quotes
 * a file name from the results.
 */
const gemini = findAgent('gemini');
const ANSWER = 'One file in this folder is alpha.txt.';

describe.skipIf(!gemini)('Gemini CLI through the gateway', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig();
    await writeGeminiSettings(rig.home);
  });
  afterEach(async () => {
    await rig?.close();
  });

  async function listFiles(model: string) {
    const run = await runAgent(gemini!, ['-m', `acme.${model}`, '-p', 'list files in this folder and tell me one name', '--output-format', 'json', '--skip-trust'], {
      cwd: rig.workdir,
      env: {
        HOME: rig.home,
        GEMINI_API_KEY: TEST_KEY,
        GOOGLE_GEMINI_BASE_URL: `${rig.gateway.url}/api/gemini`,
      },
    });
    const context = describeRun(rig, run);
    const out = printedJson(run.stdout);
    expect(out?.response, context).toBe(ANSWER);
    expect(out.error, context).toBeUndefined();
    expect(run.code, context).toBe(0);
    expect(rig.fake.rejections, context).toEqual([]);
    // Both tools ran locally (the CLI counts them) and their output reached the model.
    expect(Object.keys(out.stats?.tools?.byName ?? {}).sort(), context).toEqual(['glob', 'list_directory']);
    const kind = KIND_OF[model]!;
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual([`${kind} tool:list_directory+glob`, `${kind} text`]);
    expect(rig.fake.toolResults.some((t) => t.includes('Directory listing') && t.includes('alpha.txt')), context).toBe(true);
    expect(rig.fake.finalAnswers, context).toEqual([ANSWER]);
    expect(rig.gateway.logs.filter((l) => l.method === 'POST').map((l) => l.status), context).toEqual([200, 200]);
    return { run, chats };
  }

  // Gemini CLI reads a 429's wait from a RetryInfo in the body, never from `retry-after`; it waits
  // that long (plus up to 20%) when it is longer than its own backoff (5 s ± 30% first), so a
  // limit that holds for longer is not asked again while it still holds.
  it.each([
    ['gemini upstream (fast path): its RetryInfo', MODELS.gemini25],
    ['anthropic upstream: its retry-after, as a RetryInfo', MODELS.claude],
  ])('a rate limit naming a 7 s wait (%s): the CLI asks again after it, not sooner, and finishes', async (_name, model) => {
    rig.fake.limitNext(7);
    const run = await runAgent(gemini!, ['-m', `acme.${model}`, '-p', 'say hi', '--output-format', 'json', '--skip-trust'], {
      cwd: rig.workdir,
      env: { HOME: rig.home, GEMINI_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: `${rig.gateway.url}/api/gemini` },
    });
    const context = describeRun(rig, run);
    expect(run.code, context).toBe(0);
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    expect(chats.map((c) => c.answer), context).toEqual(['limited:7', 'text']);
    expect(chats[1]!.at - chats[0]!.at, context).toBeGreaterThanOrEqual(6900);
  }, 40_000);

  it('gemini upstream (fast path, Gemini 3): ids and signatures round-trip untouched', async () => {
    const { chats } = await listFiles(MODELS.gemini3);
    const step = chats[1]!.body.contents.at(-2).parts.filter((p: any) => p.functionCall);
    expect(step[0].thoughtSignature).toMatch(/^c2lnLWdlbWluaS0/);
    expect(chats[1]!.headers['x-goog-api-key']).toBe('upstream-gemini-key');
  }, 40_000);

  it('gemini upstream (fast path, Gemini 2.5)', async () => {
    await listFiles(MODELS.gemini25);
  }, 40_000);

  it('anthropic upstream: temperature and top_p are not both sent; thoughts and signatures replay', async () => {
    const { chats } = await listFiles(MODELS.claude);
    const [first, second] = chats.map((c) => c.body);
    expect(first.temperature !== undefined && first.top_p !== undefined).toBe(false);
    // includeThoughts → Claude thinking; the block comes back signed on the next step.
    expect(second.messages.at(-2).content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^c2lnLWFudGhyb3BpYy0/) });
    expect(second.messages.at(-1).content.map((b: any) => b.type)).toEqual(['tool_result', 'tool_result']);
  }, 40_000);

  it('openai-compatible upstream (gpt-oss): generateContent ↔ chat completions with tool_calls', async () => {
    const { chats } = await listFiles(MODELS.oss);
    const replay = chats[1]!.body.messages.slice(-3);
    expect(replay.map((m: any) => m.role)).toEqual(['assistant', 'tool', 'tool']);
    expect(replay.slice(1).map((m: any) => m.tool_call_id)).toEqual(replay[0].tool_calls.map((c: any) => c.id));
  }, 40_000);

  // google_web_search asks the "web-search" model (gemini-3-flash-preview, with googleSearch); a
  // user points that alias at a Claude model in settings.json, and Claude's web search runs it.
  it('google_web_search on a Claude model (the web-search alias pointed at it): Claude searches, its pages are the numbered sources', async () => {
    const settings = JSON.parse(await readFile(join(rig.home, '.gemini', 'settings.json'), 'utf8'));
    settings.modelConfigs = { customAliases: { 'web-search': { extends: 'gemini-3-flash-base', modelConfig: { model: `acme.${MODELS.claude}`, generateContentConfig: { tools: [{ googleSearch: {} }] } } } } };
    await writeFile(join(rig.home, '.gemini', 'settings.json'), JSON.stringify(settings));
    const run = await runAgent(gemini!, ['-m', `acme.${MODELS.gemini25}`, '-p', 'search the web for who won euro 2024', '--output-format', 'json', '--skip-trust'], {
      cwd: rig.workdir,
      env: { HOME: rig.home, GEMINI_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: `${rig.gateway.url}/api/gemini` },
    });
    const context = describeRun(rig, run);
    expect(printedJson(run.stdout)?.response, context).toBe(`The first page found was ${SEARCH_PAGES[0]}.`);
    expect(rig.fake.rejections, context).toEqual([]);
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual(['gemini tool:google_web_search', 'anthropic search', 'gemini text']);
    expect(chats[1]!.body.tools, context).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
    // Gemini CLI marked the cited text with its source number and listed every page.
    const result = rig.fake.toolResults.find((t) => t.startsWith('Web search results for'));
    expect(result, context).toContain(`${SEARCH_ANSWER}[1]`);
    expect(result, context).toContain(`[2] ${SEARCH_PAGES[1]} (https://www.${SEARCH_PAGES[1]}/euro-2024-1)`);
  }, 40_000);
});
