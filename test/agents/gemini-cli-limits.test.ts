import { afterEach, describe, expect, it } from 'vitest';
import { findAgent, MODELS, printedJson, runAgent, writeGeminiSettings } from './harness.ts';
import { startLimitsRig, type LimitsRig } from './limits-rig.ts';

/**
 * Gemini CLI on a key its limits refuse for good. Google's protocol has no do-not-retry signal,
 * and Gemini CLI asks again for minutes (ten tries, backing off from 5 s to 30 s, ~3.5 min) after
 * any 429 but one whose message says a capacity is exhausted or exceeded (it tries twice more, 1 s
 * and 3 s later, then stops) or which names a daily quota, `limit: 0` or a wait past 300 s (which
 * would not be true of a spent budget): the gateway's final refusals say so in words.
 */
const gemini = findAgent('gemini');

describe.skipIf(!gemini)('Gemini CLI on a key its limits refuse', () => {
  let rig: LimitsRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it.each([
    ['a budget that cannot cover the call, gemini upstream', { budgetUsd: 0.0001 }, MODELS.gemini25, /Budget exhausted: you have exhausted your capacity on this API key, whose budget of \$0\.0001/],
    ['a budget that cannot cover the call, anthropic upstream', { budgetUsd: 0.0001 }, MODELS.claude, /Budget exhausted: you have exhausted your capacity on this API key/],
    ['a token limit below the call', { tpm: 100 }, MODELS.gemini25, /Token capacity exceeded: this API key allows 100 tokens per minute/],
  ])('%s: three calls, then the message, within seconds', async (_name, limits, model, message) => {
    rig = await startLimitsRig();
    const { gateway, fake } = rig;
    await writeGeminiSettings(rig.home);
    const key = await rig.createKey(limits);
    const run = await runAgent(gemini!, ['-m', `acme.${model}`, '-p', 'say hi', '--output-format', 'json', '--skip-trust'], {
      cwd: rig.root,
      env: { HOME: rig.home, GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: `${gateway.url}/api/gemini` },
      timeoutMs: 30_000,
    });
    const calls = gateway.logs.filter((line) => line.method === 'POST' && /:(stream)?generateContent$/i.test(line.path));
    const context = `exit ${run.code} after ${run.ms} ms; gateway: ${gateway.logs.map((c) => `${c.method} ${c.path} ${c.status} ${c.error ?? ''}`).join(' | ')}\n${run.stdout.slice(-800)}\n${run.stderr.slice(-800)}`;
    expect(run.timedOut, context).toBe(false);
    expect(run.code, context).not.toBe(0);
    expect(calls.map((c) => c.status), context).toEqual([429, 429, 429]);
    expect(run.ms, context).toBeLessThan(15_000);
    expect(printedJson(run.stdout)?.error?.message ?? run.stderr, context).toMatch(message);
    expect(fake.calls.filter((c) => c.method === 'POST'), context).toEqual([]);
  }, 40_000);
});
