/**
 * Pitfall 8 (Wei-Shaw/sub2api #2380, router-for-me/CLIProxyAPI #2172): "Invalid signature in
 * thinking block" when history produced by one upstream is replayed to another. A thinking block
 * whose signature another upstream kind minted (`sy1.openai.…` for an OpenAI-compatible host's
 * reasoning, `sy1.gemini.…` carrying a Gemini thoughtSignature) must never reach Anthropic or
 * Claude on Bedrock: it is dropped, and the translated path says so in x-switchyard-warnings.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/gateway.ts';
import { startFourUpstreams, type FourUpstreams } from './helpers/four-upstreams.ts';

const MESSAGE = {
  id: 'msg_08',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text: 'Done.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 2 },
};
const COMPLETION = {
  id: 'chatcmpl-8',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-oss',
  choices: [{ index: 0, message: { role: 'assistant', reasoning_content: 'User wants a.ts. Read it.', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] }, finish_reason: 'tool_calls' }],
  usage: { prompt_tokens: 10, completion_tokens: 9, total_tokens: 19 },
};

let up: FourUpstreams;

beforeAll(async () => {
  up = await startFourUpstreams({
    claude: () => ({ body: MESSAGE }),
    oss: () => ({ body: COMPLETION }),
    aws: () => ({ json: MESSAGE }),
    providers: { oss: { replayReasoning: true } },
    models: [
      { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] },
      { id: 'bedrock-claude', routes: [{ provider: 'aws', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' }] },
      { id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
    ],
  });
});
afterAll(() => up.close());
beforeEach(() => up.clearRecords());

const client = () => new Anthropic1({ apiKey: TEST_KEY, baseURL: `${up.gateway.url}/api/anthropic`, maxRetries: 0 });
const readTool = { name: 'read_file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } };
const thinkingBlocks = (messages: Array<{ content: unknown }>) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === 'thinking' || b.type === 'redacted_thinking');

/** Claude Code's session: a turn answered by gpt-oss, then `/model` switches to a Claude model. */
async function historyFromGptOss() {
  const first = await client().messages.create({ model: 'acme.gpt-oss-120b', max_tokens: 512, tools: [readTool], messages: [{ role: 'user', content: 'Open a.ts' }] });
  expect(first.content[0]).toEqual({ type: 'thinking', thinking: 'User wants a.ts. Read it.', signature: expect.stringMatching(/^sy1\.openai\./) });
  return [
    { role: 'user' as const, content: 'Open a.ts' },
    { role: 'assistant' as const, content: first.content as never },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'call_a', content: 'export {}' }] },
  ];
}

describe('pitfall 8: Claude-style client switching to a Claude model mid-session', () => {
  it.each([
    ['Anthropic', 'acme.claude-sonnet-4-6'],
    ['Claude on Bedrock', 'acme.bedrock-claude'],
  ])('gpt-oss reasoning (sy1.openai) is not sent to %s; the tool turn still is', async (_name, model) => {
    const messages = await historyFromGptOss();
    const { data: answer, response } = await client().messages.create({ model, max_tokens: 512, tools: [readTool], messages }).withResponse();
    expect(answer.content).toEqual([{ type: 'text', text: 'Done.' }]);
    // The fast path says what it changed, like the translated path does.
    expect(response.headers.get('x-switchyard-warnings')).toMatch(/1 thinking block\(s\) signed by another provider were dropped/);
    const sent = model === 'acme.bedrock-claude' ? up.aws.calls[0]!.json : up.claude.requests[0]!.json;
    expect(thinkingBlocks(sent.messages)).toEqual([]);
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } }] });
  });

  it('a Gemini thoughtSignature carrier (empty thinking, sy1.gemini) is not sent to Anthropic, in messages and in count_tokens', async () => {
    const messages = [
      { role: 'user' as const, content: 'Open a.ts' },
      {
        role: 'assistant' as const,
        content: [
          { type: 'thinking' as const, thinking: '', signature: 'sy1.gemini.CiQBjz1rX0geminiSig' },
          { type: 'tool_use' as const, id: 'gx_r1_0', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'gx_r1_0', content: 'export {}' }] },
    ];
    await client().messages.create({ model: 'acme.claude-sonnet-4-6', max_tokens: 512, tools: [readTool], messages });
    up.claude.reply(() => ({ body: { input_tokens: 42 } }));
    await client().messages.countTokens({ model: 'acme.claude-sonnet-4-6', tools: [readTool], messages });
    up.claude.reply(() => ({ body: MESSAGE }));
    for (const request of up.claude.requests) expect(JSON.stringify(request.json)).not.toContain('sy1.');
    expect(up.claude.requests.map((r) => r.url)).toEqual(['/v1/messages', '/v1/messages/count_tokens']);
  });

  it('control: Anthropic-signed thinking still goes back unchanged', async () => {
    const messages = [
      { role: 'user' as const, content: 'Open a.ts' },
      {
        role: 'assistant' as const,
        content: [
          { type: 'thinking' as const, thinking: 'Read it.', signature: 'EqQBCgIYAhIMnative' },
          { type: 'tool_use' as const, id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'export {}' }] },
    ];
    await client().messages.create({ model: 'acme.claude-sonnet-4-6', max_tokens: 512, tools: [readTool], messages });
    expect(up.claude.requests[0]!.json).toEqual({ model: 'claude-sonnet-4-6', max_tokens: 512, tools: [readTool], messages });
  });
});

describe('pitfall 8: Gemini-style client whose history holds other upstreams\' reasoning → Anthropic (translated)', () => {
  it('foreign thinking is dropped with a warning; only the call goes to Anthropic', async () => {
    const res = await fetch(`${up.gateway.url}/api/gemini/v1beta/models/acme.claude-sonnet-4-6:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({
        contents: [
          { role: 'user', parts: [{ text: 'Open a.ts' }] },
          {
            role: 'model',
            parts: [
              { text: 'User wants a.ts.', thought: true },
              { functionCall: { id: 'call_a', name: 'read_file', args: { path: 'a.ts' } }, thoughtSignature: 'sy1.openai.r1abc' },
            ],
          },
          { role: 'user', parts: [{ functionResponse: { id: 'call_a', name: 'read_file', response: { output: 'export {}' } } }] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const sent = up.claude.requests[0]!.json;
    expect(thinkingBlocks(sent.messages)).toEqual([]);
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } }] });
    expect(res.headers.get('x-switchyard-warnings')).toMatch(/reasoning from openai dropped/);
  });
});
