import { afterEach, describe, expect, it } from 'vitest';
import { claudeEnv, findAgent, MODELS, printedJson, runAgent } from './harness.ts';
import { startLimitsRig, type LimitsRig } from './limits-rig.ts';

/**
 * Claude Code on a key its limits refuse for good: it must stop at once with the gateway's
 * message. It retries a 429 ten times over minutes unless told not to (`x-should-retry: false`),
 * which a spent budget or a request over the key's token limit warrant: asking again cannot help.
 */
const claude = findAgent('claude');

describe.skipIf(!claude)('Claude Code on a key its limits refuse', () => {
  let rig: LimitsRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it.each([
    ['a budget that cannot cover the call', { budgetUsd: 0.0001 }, /Budget exhausted: you have exhausted your capacity on this API key, whose budget of \$0\.0001/],
    ['a token limit below the call', { tpm: 100 }, /Token capacity exceeded: this API key allows 100 tokens per minute/],
  ])('%s: one call, then the message, within seconds', async (_name, limits, message) => {
    rig = await startLimitsRig();
    const { gateway, fake } = rig;
    const key = await rig.createKey(limits);
    const run = await runAgent(claude!, ['-p', 'say hi', '--output-format', 'json', '--no-session-persistence'], {
      cwd: rig.root,
      env: { ...claudeEnv(gateway.url, rig.home, MODELS.claude), ANTHROPIC_API_KEY: key },
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
