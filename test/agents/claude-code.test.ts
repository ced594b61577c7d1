import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEARCH_ANSWER, SEARCH_PAGES } from './fake-llm.ts';
import { claudeEnv, describeRun, findAgent, findScript, KIND_OF, MODELS, printedJson, runAgent, startRig, TEST_KEY, type Rig } from './harness.ts';

/**
 * Claude Code, run the way a user runs it against a gateway (`claude -p … --output-format json`
 * with ANTHROPIC_BASE_URL and a Switchyard key), over each upstream kind. The fake model answers
 * "list files" with a parallel Bash + Glob call, then quotes a file name from the results; so a
 * passing run means the whole tool round trip crossed the gateway twice, streaming both ways.
 */
const claude = findAgent('claude');
const script = findScript();
const ANSWER = 'One file in this folder is alpha.txt.';

describe.skipIf(!claude)('Claude Code through the gateway', () => {
  let rig: Rig;
  beforeEach(async () => {
    rig = await startRig();
  });
  afterEach(async () => {
    await rig?.close();
  });

  /** `claude <args> --output-format json` on `model` in the rig's workspace; checks that it answered ANSWER. */
  async function runClaude(model: string, args: string[]) {
    const run = await runAgent(claude!, [...args, '--output-format', 'json', '--allowedTools', 'Bash', 'Glob'], {
      cwd: rig.workdir,
      env: claudeEnv(rig.gateway.url, rig.home, model),
    });
    const context = describeRun(rig, run);
    const out = printedJson(run.stdout);
    expect(out?.result, context).toBe(ANSWER);
    expect(out.is_error, context).toBe(false);
    expect(run.code, context).toBe(0);
    expect(rig.fake.rejections, context).toEqual([]);
    return { run, context };
  }

  async function listFiles(model: string) {
    const { run, context } = await runClaude(model, ['-p', 'list files in this folder and tell me one name', '--no-session-persistence']);
    // Every model call went to the expected upstream kind: a tool step, then the answer.
    const kind = KIND_OF[model]!;
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual([`${kind} tool:Bash+Glob`, `${kind} text`]);
    // The tools really ran in the workspace and their output reached the model.
    expect(rig.fake.toolResults.some((t) => t.includes('alpha.txt') && t.includes('beta.md')), context).toBe(true);
    expect(rig.fake.finalAnswers, context).toEqual([ANSWER]);
    expect(rig.gateway.logs.filter((l) => l.method === 'POST').map((l) => l.status), context).toEqual([200, 200]);
    return { run, chats };
  }

  it('anthropic upstream (fast path): thinking and context management pass through', async () => {
    const { chats } = await listFiles(MODELS.claude);
    // Claude Code's betas reach Anthropic (context_management needs one), and its signature-only thinking block is replayed.
    expect(String(chats[0]!.headers['anthropic-beta'])).toContain('context-management-2025-06-27');
    expect(chats[0]!.body.thinking).toMatchObject({ type: 'enabled', display: 'omitted' });
    expect(chats[1]!.body.messages.at(-2).content[0]).toMatchObject({ type: 'thinking', thinking: '' });
  }, 40_000);

  it('openai-compatible upstream (gpt-oss): Messages ↔ chat completions with tool_calls', async () => {
    const { chats } = await listFiles(MODELS.oss);
    const replay = chats[1]!.body.messages.slice(-3);
    expect(replay.map((m: any) => m.role)).toEqual(['assistant', 'tool', 'tool']);
    expect(replay[0].tool_calls.map((c: any) => c.function.name)).toEqual(['Bash', 'Glob']);
  }, 40_000);

  it('gemini upstream (2.5): parallel results go back in call order', async () => {
    const { chats } = await listFiles(MODELS.gemini25);
    const results = chats[1]!.body.contents.at(-1).parts.map((p: any) => p.functionResponse?.name);
    expect(results).toEqual(['Bash', 'Glob']);
  }, 40_000);

  it('gemini upstream (3): call ids and the thought signature come back', async () => {
    const { chats } = await listFiles(MODELS.gemini3);
    const step = chats[1]!.body.contents.at(-2).parts.filter((p: any) => p.functionCall);
    expect(step[0].thoughtSignature).toMatch(/^c2lnLWdlbWluaS0/);
    expect(step.map((p: any) => p.functionCall.id)).toEqual([expect.stringMatching(/^fc-fake/), expect.stringMatching(/^fc-fake/)]);
  }, 40_000);

  it('a session begun on Claude and resumed on Gemini 3 (claude -c): Claude\'s toolu_ ids never reach Gemini', async () => {
    await runClaude(MODELS.claude, ['-p', 'list files in this folder and tell me one name']);
    const { context } = await runClaude(MODELS.gemini3, ['-c', '-p', 'list files in this folder again and tell me one name']);
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual(['anthropic tool:Bash+Glob', 'anthropic text', 'gemini tool:Bash+Glob', 'gemini text']);
    expect(rig.fake.finalAnswers, context).toEqual([ANSWER, ANSWER]);
    // The last request holds both steps: Claude's without ids (paired by position), Gemini's with the ids it issued.
    const contents: any[] = chats[3]!.body.contents;
    const steps = contents.filter((c) => c.role === 'model' && c.parts.some((p: any) => p.functionCall)).map((c) => c.parts.filter((p: any) => p.functionCall));
    expect(steps.map((calls) => calls.map((p: any) => p.functionCall.id)), context).toEqual([
      [undefined, undefined],
      [expect.stringMatching(/^fc-fake/), expect.stringMatching(/^fc-fake/)],
    ]);
    expect(steps[1]![0].thoughtSignature, context).toMatch(/^c2lnLWdlbWluaS0/);
    expect(JSON.stringify(contents), context).not.toContain('toolu_');
  }, 60_000);

  // Claude Code declares a few tools and finds the rest with ToolSearch, whose answer is a
  // tool_reference that Anthropic's API expands into the tool's definition. Elsewhere the model
  // reads the definition as text, and the tool comes declared in full on the next request.
  it.each([
    ['anthropic upstream: the reference passes as sent', MODELS.claude],
    ['gemini upstream: the definition as text in the functionResponse', MODELS.sonnetOnGemini],
    ['openai-compatible upstream: the definition as text in the tool message', MODELS.oss],
  ])('tool search (%s): the found tool is loaded, no call refused', async (_name, model) => {
    const run = await runAgent(claude!, ['-p', 'load the WebFetch tool and then say done', '--output-format', 'json', '--no-session-persistence'], {
      cwd: rig.workdir,
      env: claudeEnv(rig.gateway.url, rig.home, model),
    });
    const context = describeRun(rig, run);
    expect(printedJson(run.stdout)?.result, context).toBe('WebFetch is loaded.');
    expect(rig.gateway.logs.filter((l) => l.method === 'POST').map((l) => l.status), context).toEqual([200, 200]);
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual([`${KIND_OF[model]} tool:ToolSearch`, `${KIND_OF[model]} text`]);
    const next = chats[1]!.body;
    const declared = KIND_OF[model] === 'gemini' ? next.tools.flatMap((t: any) => t.functionDeclarations ?? []) : next.tools.map((t: any) => t.function ?? t);
    expect(declared.map((t: any) => t.name), context).toContain('WebFetch');
    const result = JSON.stringify(KIND_OF[model] === 'anthropic' ? next.messages.at(-1) : KIND_OF[model] === 'gemini' ? next.contents.at(-1) : next.messages.find((m: any) => m.role === 'tool'));
    if (KIND_OF[model] === 'anthropic') expect(result, context).toContain('{"type":"tool_reference","tool_name":"WebFetch"}');
    else expect(result, context).toMatch(/<functions>\\n<function>\{\\"description\\":.*\\"name\\":\\"WebFetch\\",\\"parameters\\":\{/);
  }, 40_000);

  // WebSearch runs as a side call that offers only Anthropic's web_search server tool and forces
  // it; on a Gemini model that is Google Search, whose grounding comes back as the search blocks
  // Claude Code reads its links from.
  it.each([
    ['gemini 2.5', MODELS.gemini25],
    ['gemini 3', MODELS.gemini3],
  ])('WebSearch on a %s model: Google Search runs, and its pages reach the model as the tool result', async (_name, model) => {
    const run = await runAgent(claude!, ['-p', 'search the web for who won euro 2024', '--output-format', 'json', '--allowedTools', 'WebSearch', '--no-session-persistence'], {
      cwd: rig.workdir,
      env: claudeEnv(rig.gateway.url, rig.home, model),
    });
    const context = describeRun(rig, run);
    const out = printedJson(run.stdout);
    expect(out?.result, context).toBe(`The first page found was ${SEARCH_PAGES[0]}.`);
    expect(rig.fake.rejections, context).toEqual([]);
    // WebSearch is deferred: found with ToolSearch, called, run as the side call, answered.
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count|Tokens/.test(c.path));
    expect(chats.map((c) => `${c.kind} ${c.answer}`), context).toEqual(['gemini tool:ToolSearch', 'gemini tool:WebSearch', 'gemini search', 'gemini text']);
    expect(chats[2]!.body.tools, context).toEqual([{ googleSearch: {} }]);
    expect(chats[2]!.body.toolConfig, context).toBeUndefined();
    expect(chats[2]!.path, context).toMatch(/:streamGenerateContent\?alt=sse$/);
    // The tool result Claude Code built holds every page and the search's text.
    const result = rig.fake.toolResults.find((t) => t.startsWith('Web search results for query'));
    for (const page of SEARCH_PAGES) expect(result, context).toContain(`"title":"${page}"`);
    expect(result, context).toContain(SEARCH_ANSWER);
    expect(rig.gateway.logs.filter((l) => l.method === 'POST').map((l) => l.status), context).toEqual([200, 200, 200, 200]);
  }, 40_000);

  it('a Claude model name served by Gemini 2.5: budget 31999 is clamped to the model range', async () => {
    const { chats } = await listFiles(MODELS.sonnetOnGemini);
    expect(chats[0]!.body.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576, includeThoughts: false });
  }, 40_000);

  it.skipIf(!script)('interactive session: display "updates" thinking and a title from the small model', async () => {
    // Pre-answered first-run questions (onboarding, folder trust, "use this API key?": the key's last 20 characters).
    const state = {
      hasCompletedOnboarding: true,
      theme: 'dark',
      projects: { [rig.workdir]: { hasTrustDialogAccepted: true, allowedTools: ['Bash', 'Glob'] } },
      customApiKeyResponses: { approved: [TEST_KEY.slice(-20)], rejected: [] },
    };
    await writeFile(join(rig.home, '.claude.json'), JSON.stringify(state));
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const command = [claude!, 'list files in this folder and tell me one name', '--allowedTools', 'Bash', 'Glob'].map(quote).join(' ');
    const run = await runAgent(script!, ['-q', '-c', command, '/dev/null'], {
      cwd: rig.workdir,
      env: {
        HOME: rig.home,
        TERM: 'xterm-256color',
        ANTHROPIC_BASE_URL: `${rig.gateway.url}/api/anthropic`,
        ANTHROPIC_API_KEY: TEST_KEY,
        ANTHROPIC_MODEL: `acme.${MODELS.claude}`,
        // The small model (titles) on another family: a translated side request with a JSON schema.
        ANTHROPIC_DEFAULT_HAIKU_MODEL: `acme.${MODELS.gemini3}`,
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      stopWhen: () => rig.fake.finalAnswers.length > 0 && rig.fake.calls.some((c) => c.answer === 'json'),
    });
    const context = describeRun(rig, run);
    expect(rig.fake.finalAnswers, context).toEqual([ANSWER]);
    expect(rig.fake.rejections, context).toEqual([]);
    // Without a route for the connectivity probe (HEAD /api/hello), every call succeeded on the first try.
    // An interactive session may add side calls under load (a second title, a retry after a slow
    // answer): what matters is that every call succeeded and the tool turn came before the answer.
    expect(rig.gateway.logs.filter((l) => l.method === 'POST').every((l) => l.status === 200), context).toBe(true);
    const chats = rig.fake.calls.filter((c) => c.kind === 'anthropic');
    expect(chats[0]?.answer, context).toMatch(/^tool:Bash/);
    expect(chats.at(-1)?.answer, context).toBe('text');
    expect(chats[0]!.body.thinking.display, context).toBe('updates');
    const title = rig.fake.calls.find((c) => c.answer === 'json')!;
    expect(title.kind).toBe('gemini');
    expect(title.body.generationConfig.responseMimeType).toBe('application/json');
  }, 40_000);
});
