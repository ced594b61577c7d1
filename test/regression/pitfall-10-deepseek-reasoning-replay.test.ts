/**
 * Pitfall 10 (CCR #1378): DeepSeek's thinking mode needs each assistant turn's reasoning_content
 * echoed back after tool calls, or it answers 400; Claude Code keeps only the thinking blocks, and
 * the router did not re-inject them. With `replayReasoning`, the reasoning this host produced goes
 * back on the assistant turn it belongs to, unchanged; hosts without it never get it.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

let deepseek: FakeUpstream;
let gateway: RunningGateway;

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'ds-1', object: 'chat.completion.chunk', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const toolTurn = (reasoning: string[], id: string, args: string) => [
  chunk({ role: 'assistant', content: null, reasoning_content: '' }),
  ...reasoning.map((r) => chunk({ content: null, reasoning_content: r })),
  chunk({ content: null, reasoning_content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name: 'read_file', arguments: args } }] }),
  chunk({}, 'tool_calls'),
  `data: ${JSON.stringify({ id: 'ds-1', object: 'chat.completion.chunk', created: 1, model: 'deepseek-reasoner', choices: [], usage: { prompt_tokens: 50, completion_tokens: 30, total_tokens: 80, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 50 } })}\n\n`,
  'data: [DONE]\n\n',
];
const DONE = { id: 'ds-2', object: 'chat.completion', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, message: { role: 'assistant', content: 'Both files are empty.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 90, completion_tokens: 5, total_tokens: 95 } };

beforeAll(async () => {
  deepseek = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: {
        deepseek: { type: 'openai', baseUrl: `${deepseek.url}/v1`, apiKey: 'sk-ds', replayReasoning: true },
        plain: { type: 'openai', baseUrl: `${deepseek.url}/v1`, apiKey: 'sk-ds' },
      },
      models: [
        { id: 'deepseek-v4', routes: [{ provider: 'deepseek', model: 'deepseek-reasoner' }] },
        { id: 'deepseek-no-replay', routes: [{ provider: 'plain', model: 'deepseek-reasoner' }] },
      ],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await deepseek.close();
});
beforeEach(() => {
  deepseek.requests.length = 0;
});

const tools = [{ name: 'read_file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } }];

describe.each([
  ['1.x', Anthropic1],
  ['0.x', Anthropic0],
] as const)('pitfall 10: Claude Code-style tool loop on DeepSeek (SDK %s)', (_v, Client) => {
  const client = () => new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });

  it('each assistant turn gets back its own reasoning_content, across two tool rounds', async () => {
    const messages: Anthropic1.MessageParam[] = [{ role: 'user', content: 'Read a.ts and b.ts' }];
    const rounds: Array<[string[], string, string, string]> = [
      [['Start with ', 'a.ts.'], 'call_a', '{"path":"a.ts"}', 'Start with a.ts.'],
      [['Now b.ts.'], 'call_b', '{"path":"b.ts"}', 'Now b.ts.'],
    ];
    for (const [pieces, id, args] of rounds) {
      deepseek.reply(() => ({ chunks: toolTurn(pieces, id, args) }));
      const turn = await client().messages.stream({ model: 'acme.deepseek-v4', max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 }, tools, messages }).finalMessage();
      messages.push({ role: 'assistant', content: turn.content as never }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: '' }] });
    }
    deepseek.reply(() => ({ body: DONE }));
    await client().messages.create({ model: 'acme.deepseek-v4', max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 }, tools, messages });

    const last = deepseek.requests.at(-1)!.json.messages;
    expect(last.filter((m: { role: string }) => m.role === 'assistant')).toEqual(
      rounds.map(([, id, args, reasoning]) => ({ role: 'assistant', content: null, reasoning_content: reasoning, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: args } }] })),
    );
  });
});

describe('pitfall 10: what is not echoed', () => {
  async function replay(model: string, thinking: string, signature: string) {
    deepseek.reply(() => ({ body: DONE }));
    const res = await fetch(`${gateway.url}/api/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model,
        max_tokens: 100,
        tools,
        messages: [
          { role: 'user', content: 'Read a.ts' },
          { role: 'assistant', content: [{ type: 'thinking', thinking, signature }, { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_a', content: '' }] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    return { assistant: deepseek.requests.at(-1)!.json.messages[1], warnings: res.headers.get('x-switchyard-warnings') ?? '' };
  }

  it('reasoning the client edited (signature no longer matches) is dropped with a warning', async () => {
    deepseek.reply(() => ({ chunks: toolTurn(['Start with a.ts.'], 'call_a', '{"path":"a.ts"}') }));
    const turn = await new Anthropic1({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 }).messages
      .stream({ model: 'acme.deepseek-v4', max_tokens: 100, tools, messages: [{ role: 'user', content: 'Read a.ts' }] })
      .finalMessage();
    const { signature } = turn.content[0] as { signature: string };
    const unchanged = await replay('acme.deepseek-v4', 'Start with a.ts.', signature);
    expect(unchanged.assistant.reasoning_content).toBe('Start with a.ts.');
    const edited = await replay('acme.deepseek-v4', 'Start with b.ts.', signature);
    expect(edited.assistant).not.toHaveProperty('reasoning_content');
    expect(edited.warnings).toMatch(/earlier reasoning was dropped/);
  });

  it('a host without replayReasoning never receives reasoning', async () => {
    const { assistant } = await replay('acme.deepseek-no-replay', 'Start with a.ts.', 'sy1.openai.whatever');
    expect(assistant).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] });
  });
});
