/**
 * Pitfall 17 (LiteLLM #26320; new-api #4678, CCR PR #1220): prompt caching silently broken by the
 * translation. Top-level `cache_control` was not carried to Bedrock; Claude Code's per-request
 * `x-anthropic-billing-header: …; cch=…` system block, concatenated first into an OpenAI system
 * message, changed the prompt prefix every turn and killed prefix caching. Breakpoints must
 * survive the Anthropic fast path exactly, become Bedrock cachePoints, and the volatile block must
 * stay out of the cached prefix for every upstream that caches by prefix (OpenAI-compatible,
 * Gemini, Bedrock Converse).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';

const MESSAGE = { id: 'msg_17', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } };
const COMPLETION = { id: 'c17', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } };
const GEMINI = { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 } };
const CONVERSE = { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage: { inputTokens: 5, outputTokens: 1, totalTokens: 6 }, metrics: { latencyMs: 10 } };

let up: FourUpstreams;

beforeAll(async () => {
  up = await startFourUpstreams({
    claude: () => ({ body: MESSAGE }),
    oss: () => ({ body: COMPLETION }),
    google: () => ({ body: GEMINI }),
    aws: (call) => ({ json: call.operation === 'converse' ? CONVERSE : MESSAGE }),
    models: [
      { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] },
      { id: 'bedrock-claude', routes: [{ provider: 'aws', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      { id: 'nova-pro', routes: [{ provider: 'aws', model: 'us.amazon.nova-pro-v1:0' }] },
      { id: 'kimi-k2', routes: [{ provider: 'oss', model: 'moonshotai/kimi-k2' }] },
      { id: 'gemini-2.5-pro', routes: [{ provider: 'google', model: 'gemini-2.5-pro' }] },
    ],
  });
});
afterAll(() => up.close());
beforeEach(() => up.clearRecords());

const billing = (cch: string) => ({ type: 'text', text: `x-anthropic-billing-header: cc_version=2.1.37.a1b; cc_entrypoint=cli; cch=${cch};` });
/** Claude Code's request shape: the billing block first, then the cached system prompt and tools. */
const claudeCodeBody = (model: string, cch: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 1024,
  system: [
    billing(cch),
    { type: 'text', text: 'You are Claude Code, Anthropic\'s official CLI for Claude.', cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Working directory: /repo', cache_control: { type: 'ephemeral', ttl: '1h' } },
  ],
  tools: [{ name: 'Bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } }, cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'List the files', cache_control: { type: 'ephemeral' } }] }],
  ...extra,
});

const post = (body: unknown, beta?: string) =>
  fetch(`${up.gateway.url}/api/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', ...(beta ? { 'anthropic-beta': beta } : {}) },
    body: JSON.stringify(body),
  });

describe('pitfall 17: Anthropic fast path', () => {
  it('top-level, system, tool and message cache_control (and the 1h-TTL beta) reach Anthropic exactly', async () => {
    const body = claudeCodeBody('acme.claude-sonnet-4-6', 'aaaaa', { cache_control: { type: 'ephemeral' } });
    expect((await post(body, 'extended-cache-ttl-2025-04-11')).status).toBe(200);
    const seen = up.claude.requests[0]!;
    expect(seen.json).toEqual({ ...body, model: 'claude-sonnet-4-6' });
    expect(seen.headers['anthropic-beta']).toBe('extended-cache-ttl-2025-04-11');
  });

  it('Claude on Bedrock (InvokeModel) keeps every breakpoint too', async () => {
    const body = claudeCodeBody('acme.bedrock-claude', 'aaaaa');
    expect((await post(body)).status).toBe(200);
    const { model: _m, ...rest } = body;
    expect(up.aws.calls[0]!.json).toEqual({ anthropic_version: 'bedrock-2023-05-31', ...rest });
  });
});

describe('pitfall 17: Bedrock Converse (non-Claude model)', () => {
  it('system and tool breakpoints become cachePoints, the billing block after them; top-level cache_control marks the last block', async () => {
    const body = claudeCodeBody('acme.nova-pro', 'aaaaa', { cache_control: { type: 'ephemeral' }, messages: [{ role: 'user', content: 'List the files' }] });
    expect((await post(body)).status).toBe(200);
    const sent = up.aws.calls[0]!.json;
    // The per-request billing block comes after the last cachePoint, or no prefix would ever repeat.
    expect(sent.system).toEqual([
      { text: 'You are Claude Code, Anthropic\'s official CLI for Claude.' },
      { cachePoint: { type: 'default' } },
      { text: 'Working directory: /repo' },
      { cachePoint: { type: 'default', ttl: '1h' } },
      { text: billing('aaaaa').text },
    ]);
    expect(sent.toolConfig.tools.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    // The message has no breakpoint of its own: the top-level one lands after its last block.
    expect(sent.messages).toEqual([{ role: 'user', content: [{ text: 'List the files' }, { cachePoint: { type: 'default' } }] }]);
  });
});

describe('pitfall 17: OpenAI-compatible upstream (implicit prefix caching)', () => {
  it('the billing block goes last: two turns with different cch share the whole system prefix', async () => {
    await post(claudeCodeBody('acme.kimi-k2', 'aaaaa'));
    await post(claudeCodeBody('acme.kimi-k2', 'bbbbb'));
    const [first, second] = up.oss.requests.map((r) => r.json.messages[0]);
    expect(first).toEqual({
      role: 'system',
      content: 'You are Claude Code, Anthropic\'s official CLI for Claude.\n\nWorking directory: /repo\n\nx-anthropic-billing-header: cc_version=2.1.37.a1b; cc_entrypoint=cli; cch=aaaaa;',
    });
    const prefix = (text: string) => text.slice(0, text.indexOf('x-anthropic-billing-header'));
    expect(prefix(second.content)).toBe(prefix(first.content));
    expect(second.content.startsWith('You are Claude Code')).toBe(true);
  });
});

describe('pitfall 17: Gemini upstream (implicit prefix caching)', () => {
  it('systemInstruction keeps the stable parts first and the billing block last', async () => {
    await post(claudeCodeBody('acme.gemini-2.5-pro', 'aaaaa'));
    expect(up.google.requests[0]!.json.systemInstruction).toEqual({
      parts: [{ text: 'You are Claude Code, Anthropic\'s official CLI for Claude.' }, { text: 'Working directory: /repo' }, { text: billing('aaaaa').text }],
    });
  });
});
