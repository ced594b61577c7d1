/**
 * Pitfall 9 (LiteLLM #16893, #25322; Portkey #1442): Gemini 3 requires the `thoughtSignature` it
 * put on a function call to come back on that call; gateways dropped it in streaming or in the
 * Messages bridge, and the second turn failed with 400. Through the Claude-style route the
 * signature must survive a streamed and a non-streamed turn and be restored on the right call
 * (never replaced by Google's "skip" escape value).
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

const SIG = 'CiQB0e2Kb9thoughtSignatureForTheFirstCall==';
let google: FakeUpstream;
let gateway: RunningGateway;

const CALL_PARTS = [
  { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIG },
  // A parallel call: Gemini signs only the first call of a step.
  { functionCall: { name: 'get_time', args: { tz: 'CET' } } },
];
const usageMetadata = { promptTokenCount: 40, candidatesTokenCount: 12, thoughtsTokenCount: 30, totalTokenCount: 82 };
const chunk = (parts: unknown[], last = false) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...(last && { finishReason: 'STOP' }) }], usageMetadata, modelVersion: 'gemini-3-pro-preview', responseId: 'resp9' })}\n\n`;
const STREAM = [chunk([{ text: 'Two lookups needed.', thought: true }]), chunk([CALL_PARTS[0]]), chunk([CALL_PARTS[1]], true)];
const RESPONSE = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'Two lookups needed.', thought: true }, ...CALL_PARTS] }, finishReason: 'STOP', index: 0 }],
  usageMetadata,
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'resp9',
};
const FINAL = { candidates: [{ content: { role: 'model', parts: [{ text: '18°C at 14:00.' }] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: 'gemini-3-pro-preview' };

beforeAll(async () => {
  google = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: { google: { type: 'gemini', baseUrl: google.url, apiKey: 'g-key' } },
      models: [{ id: 'gemini-3-pro', routes: [{ provider: 'google', model: 'gemini-3-pro-preview' }] }],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await google.close();
});
beforeEach(() => {
  google.requests.length = 0;
});

const tools = [
  { name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } },
  { name: 'get_time', input_schema: { type: 'object' as const, properties: { tz: { type: 'string' } } } },
];
const ask = { role: 'user' as const, content: 'Weather and time in Paris?' };

describe.each([
  ['1.x', Anthropic1],
  ['0.x', Anthropic0],
] as const)('pitfall 9: Claude-style client (SDK %s) → Gemini 3', (_v, Client) => {
  const client = () => new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });

  async function secondTurn(content: unknown[]) {
    const calls = content.filter((b) => (b as { type: string }).type === 'tool_use') as Array<{ id: string }>;
    google.reply(() => ({ body: FINAL }));
    const res = await client()
      .messages.create({
        model: 'acme.gemini-3-pro',
        max_tokens: 1024,
        tools,
        messages: [ask, { role: 'assistant', content: content as never }, { role: 'user', content: calls.map((c, i) => ({ type: 'tool_result' as const, tool_use_id: c.id, content: ['18°C', '14:00'][i]! })) }],
      })
      .withResponse();
    const sent = google.requests.at(-1)!.json;
    return { model: sent.contents[1], warnings: res.response.headers.get('x-switchyard-warnings') ?? '' };
  }

  it('streamed: the signature reaches the client and goes back on the first call of the step', async () => {
    google.reply(() => ({ chunks: STREAM }));
    const first = await client().messages.stream({ model: 'acme.gemini-3-pro', max_tokens: 1024, tools, messages: [ask] }).finalMessage();
    expect(first.content.filter((b) => b.type === 'tool_use').map((b) => (b as { name: string }).name)).toEqual(['get_weather', 'get_time']);
    expect(JSON.stringify(first.content)).toContain(SIG);

    const { model, warnings } = await secondTurn(first.content);
    expect(model.role).toBe('model');
    expect(model.parts.filter((p: { functionCall?: unknown }) => p.functionCall)).toEqual(CALL_PARTS);
    expect(JSON.stringify(model)).not.toContain('skip_thought_signature_validator');
    expect(warnings).not.toMatch(/thought signature/);
  });

  it('non-streamed: the same round trip through messages.create', async () => {
    google.reply(() => ({ body: RESPONSE }));
    const first = await client().messages.create({ model: 'acme.gemini-3-pro', max_tokens: 1024, tools, messages: [ask] });
    const { model } = await secondTurn(first.content);
    expect(model.parts.filter((p: { functionCall?: unknown }) => p.functionCall)).toEqual(CALL_PARTS);
  });
});

describe('pitfall 9: control — history from elsewhere gets the documented escape value, and the client is told', () => {
  it('a tool call without a Gemini signature in the current turn is sent with skip_thought_signature_validator', async () => {
    google.reply(() => ({ body: FINAL }));
    const res = await fetch(`${gateway.url}/api/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'acme.gemini-3-pro',
        max_tokens: 100,
        tools,
        messages: [ask, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'get_weather', input: { city: 'Paris' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: '18°C' }] }],
      }),
    });
    expect(res.status).toBe(200);
    expect(google.requests[0]!.json.contents[1].parts[0].thoughtSignature).toBe('skip_thought_signature_validator');
    expect(res.headers.get('x-switchyard-warnings')).toMatch(/had no Gemini thought signature/);
  });
});
