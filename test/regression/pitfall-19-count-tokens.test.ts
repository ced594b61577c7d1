/**
 * Pitfall 19 (LiteLLM #13252, #37102): `count_tokens` missing (a 404 on every Claude Code call) or
 * confidently wrong (a silent local-tokenizer fallback reporting ~675K tokens for ~1.19M), so
 * client-side compaction fired too late. The Claude-style route must count for every upstream
 * kind, with the upstream's own counter where there is one, and say in x-switchyard-token-count
 * whether the number is the provider's (`upstream`) or an `estimate`.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';

let up: FourUpstreams;
let googleDown = false;

beforeAll(async () => {
  up = await startFourUpstreams({
    claude: (req) => (req.url === '/v1/messages/count_tokens' ? { body: { input_tokens: 1111 } } : { status: 404, body: {} }),
    oss: () => ({ status: 404, body: { error: { message: 'no such route' } } }),
    google: (req) =>
      googleDown ? { status: 503, body: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } } } : req.url.includes(':countTokens') ? { body: { totalTokens: 2222 } } : { status: 404, body: {} },
    aws: (call) => (call.operation === 'count-tokens' ? { json: { inputTokens: call.json?.input?.invokeModel ? 3333 : 4444 } } : { error: { type: 'ValidationException', message: 'unexpected', status: 400 } }),
    models: [
      { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] },
      { id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
      { id: 'gemini-2.5-pro', routes: [{ provider: 'google', model: 'gemini-2.5-pro' }] },
      { id: 'bedrock-claude', routes: [{ provider: 'aws', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      { id: 'nova-pro', routes: [{ provider: 'aws', model: 'amazon.nova-pro-v1:0' }] },
    ],
  });
});
afterAll(() => up.close());

const body = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user' as const, content: 'How many tokens is this sentence, roughly speaking?' }], ...extra });

const UPSTREAMS = [
  ['anthropic', 'acme.claude-sonnet-4-6', 1111, 'upstream'],
  ['gemini', 'acme.gemini-2.5-pro', 2222, 'upstream'],
  ['bedrock (Claude)', 'acme.bedrock-claude', 3333, 'upstream'],
  ['bedrock (Converse)', 'acme.nova-pro', 4444, 'upstream'],
  ['openai-compatible (no counter)', 'acme.gpt-oss-120b', undefined, 'estimate'],
] as const;

describe.each(UPSTREAMS)('pitfall 19: count_tokens with a %s upstream', (_kind, model, count, source) => {
  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('SDK %s countTokens() answers, and the header says where the number comes from', async (_v, Client) => {
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
    const { data, response } = await client.messages.countTokens(body(model)).withResponse();
    if (count === undefined) expect(data.input_tokens).toBeGreaterThan(5);
    else expect(data).toEqual({ input_tokens: count });
    expect(response.headers.get('x-switchyard-token-count')).toBe(source);
  });
});

describe('pitfall 19: estimates', () => {
  const count = async (extra: Record<string, unknown>) => {
    const res = await fetch(`${up.gateway.url}/api/anthropic/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body('acme.gpt-oss-120b', extra)),
    });
    return { n: (await res.json()).input_tokens as number, source: res.headers.get('x-switchyard-token-count') };
  };

  it('an estimate counts the system prompt and tools too (what Claude Code sends is mostly those)', async () => {
    const bare = await count({});
    const system = await count({ system: 'You are a careful assistant. '.repeat(40) });
    const tools = await count({ tools: [{ name: 'Bash', description: 'Run a shell command. '.repeat(40), input_schema: { type: 'object', properties: { command: { type: 'string' } } } }] });
    expect(system.n).toBeGreaterThan(bare.n + 150);
    expect(tools.n).toBeGreaterThan(bare.n + 150);
    expect([bare.source, system.source, tools.source]).toEqual(['estimate', 'estimate', 'estimate']);
  });

  it('a counter that is down gives a marked estimate, never an unmarked guess', async () => {
    googleDown = true;
    try {
      const res = await fetch(`${up.gateway.url}/api/anthropic/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(body('acme.gemini-2.5-pro')),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).input_tokens).toBeGreaterThan(5);
      expect(res.headers.get('x-switchyard-token-count')).toBe('estimate');
    } finally {
      googleDown = false;
    }
  });
});
