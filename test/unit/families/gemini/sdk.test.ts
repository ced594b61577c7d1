import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../../../core/errors.ts';
import type { ChatRequest, StreamEvent } from '../../../../core/ir.ts';
import type { Upstream } from '../../../../core/upstreams/types.ts';
import { startTestGateway, TEST_KEY, testConfig, type RunningGateway } from '../../../helpers/gateway.ts';

/** The official SDK against the gateway over HTTP, with a scripted translated upstream behind it. */
const fake = vi.hoisted(() => ({ requests: [] as ChatRequest[], events: [] as StreamEvent[] }));

vi.mock('../../../../core/upstreams/registry.ts', () => ({
  createUpstreams: () => {
    const upstream: Upstream = {
      kind: 'anthropic',
      writeRequest: (req) => {
        fake.requests.push(req);
        return { url: 'http://fake.invalid/', headers: {}, body: '{}' };
      },
      readResponse: () => {
        throw new Error('unused');
      },
      readStream: () =>
        new TransformStream<Uint8Array, StreamEvent>({
          flush(controller) {
            for (const event of fake.events) controller.enqueue(event);
          },
        }),
      readError: async () => new GatewayError('upstream', 'unused'),
    };
    return new Map([['claude', upstream]]);
  },
}));

let gw: RunningGateway;
let ai: GoogleGenAI;

beforeAll(async () => {
  gw = await startTestGateway(
    testConfig({ providers: { claude: { type: 'anthropic', apiKey: 'k' } }, models: [{ id: 'claude-x', routes: [{ provider: 'claude', model: 'claude-up' }] }] }),
    { fetch: async () => new Response('{}'), log: () => {} },
  );
  ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: `${gw.url}/api/gemini` } });
});

afterAll(() => gw.close());

const start = (id: string): StreamEvent => ({ type: 'start', id, model: 'claude-up' });
const finish = (reason: 'stop' | 'tool-calls'): StreamEvent => ({ type: 'finish', reason, usage: { inputTokens: 5, outputTokens: 7 } });

describe('@google/genai against the Gemini front door', () => {
  it('keeps a streamed chat turn with thinking and a tool call in the curated history, and replays it', async () => {
    fake.events = [
      start('msg_1'),
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'Need weather.' },
      { type: 'signature', index: 0, signature: { origin: 'anthropic', value: 'SIG1' } },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 'toolu_1', name: 'get_weather' } },
      { type: 'tool-input-delta', index: 1, json: '{"city":"Paris"}' },
      { type: 'block-end', index: 1 },
      finish('tool-calls'),
    ];
    const chat = ai.chats.create({ model: 'acme.claude-x' });
    const calls = [];
    for await (const chunk of await chat.sendMessageStream({ message: 'Weather in Paris?' })) calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([{ id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } }]);
    expect(chat.getHistory(true)).toHaveLength(4);

    fake.events = [start('msg_2'), { type: 'block-start', index: 0, block: { type: 'text' } }, { type: 'text-delta', index: 0, text: 'Sunny.' }, { type: 'block-end', index: 0 }, finish('stop')];
    let text = '';
    for await (const chunk of await chat.sendMessageStream({ message: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] })) {
      text += chunk.text ?? '';
    }
    expect(text).toBe('Sunny.');
    expect(fake.requests.at(-1)!.messages).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Need weather.', signature: { origin: 'anthropic', value: 'SIG1' } },
          { type: 'tool-call', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_1', name: 'get_weather', content: [{ type: 'text', text: 'sunny' }] }] },
    ]);
  });

  it('surfaces a mid-stream error as ApiError with the numeric code', async () => {
    fake.events = [
      start('msg_3'),
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Par' },
      { type: 'error', error: new GatewayError('overloaded', 'Overloaded') },
    ];
    const seen: string[] = [];
    const failure = await (async () => {
      try {
        for await (const chunk of await ai.models.generateContentStream({ model: 'acme.claude-x', contents: 'Hi' })) seen.push(chunk.text ?? '');
      } catch (err) {
        return err;
      }
    })();
    expect(seen).toEqual(['Par']);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(503);
  });

  it('lists models, gets one, and counts tokens', async () => {
    const pager = await ai.models.list();
    const names = [];
    for await (const model of pager) names.push(model.name);
    expect(names).toEqual(['models/acme.claude-x']);
    expect((await ai.models.get({ model: names[0]! })).supportedActions).toEqual(['generateContent', 'streamGenerateContent', 'countTokens']);
    const count = await ai.models.countTokens({ model: 'acme.claude-x', contents: 'Hello there' });
    expect(count.totalTokens).toBeGreaterThan(0);
  });
});
