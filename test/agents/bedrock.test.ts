import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withBedrock, type FakeBedrockLlm } from './fake-bedrock-llm.ts';
import { claudeEnv, describeRun, findAgent, printedJson, runAgent, startRig, TEST_KEY, writeGeminiSettings, type Rig } from './harness.ts';

/**
 * Coding agents on Claude served by Bedrock (InvokeModel with SigV4), the way a company routes
 * them through a gateway. Claude Code speaks to the gateway as to Anthropic's API, so it sends the
 * Claude API's betas and beta-only fields, which Bedrock refuses or names differently (its own
 * requests in Bedrock mode differ: `tool-search-tool-2025-10-19` where the Claude API has
 * `advanced-tool-use-2025-11-20`). The fake Bedrock refuses what Bedrock refuses; a passing run
 * is the tool round trip with no refused call. Gemini CLI's requests are translated to the
 * InvokeModel body.
 */
const claude = findAgent('claude');
const gemini = findAgent('gemini');
const ANSWER = 'One file in this folder is alpha.txt.';
const MODEL = 'claude-sonnet-4-5-bedrock';
const BEDROCK_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

describe.skipIf(!claude && !gemini)('Coding agents through the gateway to Claude on Bedrock', () => {
  let rig: Rig;
  let front: FakeBedrockLlm;
  beforeEach(async () => {
    rig = await startRig(withBedrock(MODEL, BEDROCK_ID, (started) => (front = started)));
  });
  afterEach(async () => {
    await rig?.close();
  });

  it.skipIf(!claude)('Claude Code lists files: each step one streamed InvokeModel call, none refused; tool search and context management under Bedrock\'s betas', async () => {
    const run = await runAgent(claude!, ['-p', 'list files in this folder and tell me one name', '--no-session-persistence', '--output-format', 'json', '--allowedTools', 'Bash', 'Glob'], {
      cwd: rig.workdir,
      env: claudeEnv(rig.gateway.url, rig.home, MODEL),
    });
    const calls = front.bedrock.calls.filter((c) => c.operation !== 'count-tokens');
    const context = `${describeRun(rig, run)}\nbedrock: ${front.bedrock.calls.map((c) => `${c.operation} ${c.modelId}`).join(' | ')}; refused: ${front.refusals.join(' | ') || 'none'}; bad signatures: ${front.bedrock.rejected.join(' | ') || 'none'}`;
    expect(front.refusals, context).toEqual([]);
    expect(front.bedrock.rejected, context).toEqual([]);
    expect(printedJson(run.stdout)?.result, context).toBe(ANSWER);
    expect(run.code, context).toBe(0);
    expect(calls.map((c) => `${c.operation} ${c.modelId} ${c.auth}`), context).toEqual([
      `invoke-with-response-stream ${BEDROCK_ID} sigv4`,
      `invoke-with-response-stream ${BEDROCK_ID} sigv4`,
    ]);
    const chats = rig.fake.calls.filter((c) => c.method === 'POST' && !/count/.test(c.path) && c.body?.model === BEDROCK_ID);
    expect(chats.map((c) => c.answer), context).toEqual(['tool:Bash+Glob', 'text']);
    expect(rig.fake.finalAnswers, context).toEqual([ANSWER]);
    // What Claude Code asked for reached Bedrock under Bedrock's names: its deferred tools with the
    // tool-search beta, its context management with its beta, and no Claude-API-only beta.
    const first = calls[0]!.json;
    expect(first.tools.some((t: { defer_loading?: boolean }) => t.defer_loading), context).toBe(true);
    expect(first.anthropic_beta, context).toEqual(expect.arrayContaining(['tool-search-tool-2025-10-19', 'interleaved-thinking-2025-05-14']));
    expect(first.anthropic_beta, context).not.toContain('advanced-tool-use-2025-11-20');
    // The thinking block Bedrock signed went back to it on the next step.
    expect(calls[1]!.json.messages.at(-2).content[0], context).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^c2lnLWFudGhyb3BpYy0/) });
  }, 60_000);

  it.skipIf(!claude)('Claude Code\'s tool search finds a deferred tool on Bedrock: the reference and the found tool go back under the tool-search beta', async () => {
    const run = await runAgent(claude!, ['-p', 'load the WebFetch tool and then say done', '--no-session-persistence', '--output-format', 'json'], {
      cwd: rig.workdir,
      env: claudeEnv(rig.gateway.url, rig.home, MODEL),
    });
    const calls = front.bedrock.calls.filter((c) => c.operation !== 'count-tokens');
    const context = `${describeRun(rig, run)}\nrefused: ${front.refusals.join(' | ') || 'none'}`;
    expect(front.refusals, context).toEqual([]);
    expect(printedJson(run.stdout)?.result, context).toBe('WebFetch is loaded.');
    expect(calls.length, context).toBe(2);
    const next = calls[1]!.json;
    expect(next.messages.at(-1).content[0], context).toMatchObject({ type: 'tool_result', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] });
    expect(next.tools.map((t: { name: string }) => t.name), context).toContain('WebFetch');
    expect(next.anthropic_beta, context).toContain('tool-search-tool-2025-10-19');
  }, 60_000);

  it.skipIf(!gemini)('Gemini CLI lists files (generateContent translated to InvokeModel): each step one streamed call, none refused', async () => {
    await writeGeminiSettings(rig.home);
    const run = await runAgent(gemini!, ['-m', `acme.${MODEL}`, '-p', 'list files in this folder and tell me one name', '--output-format', 'json', '--skip-trust'], {
      cwd: rig.workdir,
      env: { HOME: rig.home, GEMINI_API_KEY: TEST_KEY, GOOGLE_GEMINI_BASE_URL: `${rig.gateway.url}/api/gemini` },
    });
    const context = `${describeRun(rig, run)}\nrefused: ${front.refusals.join(' | ') || 'none'}; bad signatures: ${front.bedrock.rejected.join(' | ') || 'none'}`;
    expect(front.refusals, context).toEqual([]);
    expect(front.bedrock.rejected, context).toEqual([]);
    expect(printedJson(run.stdout)?.response, context).toBe(ANSWER);
    expect(run.code, context).toBe(0);
    expect(front.bedrock.calls.filter((c) => c.operation !== 'count-tokens').map((c) => c.operation), context).toEqual(['invoke-with-response-stream', 'invoke-with-response-stream']);
    expect(rig.fake.calls.filter((c) => c.method === 'POST' && !/count/.test(c.path)).map((c) => c.answer), context).toEqual(['tool:list_directory+glob', 'text']);
    // The thinking Gemini CLI asked for came back signed by Bedrock and went back to it.
    expect(front.bedrock.calls[1]!.json.messages.at(-2).content[0], context).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^c2lnLWFudGhyb3BpYy0/) });
  }, 60_000);
});
