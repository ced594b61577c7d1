/**
 * Pitfall 14 (LiteLLM #18604): the Google GenAI SDK sends its key as `x-goog-api-key`, and the
 * proxy did not accept it. Every family's routes take the key from that header (as from
 * `x-api-key`, Bearer and `?key=`), and a wrong one is a 401 in that family's own envelope.
 */
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

let google: FakeUpstream;
let claude: FakeUpstream;
let gateway: RunningGateway;

const GEMINI_ANSWER = { candidates: [{ content: { role: 'model', parts: [{ text: 'Bonjour' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 }, modelVersion: 'gemini-2.5-flash' };
const CLAUDE_ANSWER = { id: 'msg_14', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'Bonjour' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } };

beforeAll(async () => {
  google = await startFakeUpstream((req) => (req.url.includes('alt=sse') ? { chunks: [`data: ${JSON.stringify(GEMINI_ANSWER)}\n\n`] } : { body: GEMINI_ANSWER }));
  claude = await startFakeUpstream((req) => ({ body: req.url.endsWith('count_tokens') ? { input_tokens: 3 } : CLAUDE_ANSWER }));
  gateway = await startTestGateway(
    testConfig({
      providers: {
        google: { type: 'gemini', baseUrl: google.url, apiKey: 'g-upstream' },
        claude: { type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-upstream' },
      },
      models: [
        { id: 'gemini-2.5-flash', routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
        { id: 'claude-sonnet-4-6', routes: [{ provider: 'claude', model: 'claude-sonnet-4-6' }] },
      ],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await google.close();
  await claude.close();
});

describe('pitfall 14: the Google GenAI SDK against the Gemini-style route', () => {
  it('generateContent, streaming and the model list work with the SDK\'s own auth header', async () => {
    const ai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: `${gateway.url}/api/gemini` } });
    const answer = await ai.models.generateContent({ model: 'acme.gemini-2.5-flash', contents: 'Say hello in French' });
    expect(answer.text).toBe('Bonjour');
    let streamed = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'acme.gemini-2.5-flash', contents: 'Say hello in French' })) streamed += chunk.text ?? '';
    expect(streamed).toBe('Bonjour');
    const pager = await ai.models.list();
    expect(pager.page.map((m) => m.name)).toContain('models/acme.gemini-2.5-flash');
    // The client's key never travels upstream: the gateway's does.
    expect(google.requests.at(-1)!.headers['x-goog-api-key']).toBe('g-upstream');
  });

  it('a wrong key is the SDK\'s 401 error, not a pass', async () => {
    const ai = new GoogleGenAI({ apiKey: 'sk-wrong-key', httpOptions: { baseUrl: `${gateway.url}/api/gemini` } });
    const err = (await ai.models.generateContent({ model: 'acme.gemini-2.5-flash', contents: 'x' }).catch((e: unknown) => e)) as { status?: number };
    expect(err.status).toBe(401);
  });
});

/** Every route a client calls, with `x-goog-api-key` as the only credential. */
const ROUTES: Array<[string, string, string, unknown]> = [
  ['gemini generateContent', 'POST', '/api/gemini/v1beta/models/acme.gemini-2.5-flash:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }],
  ['gemini countTokens', 'POST', '/api/gemini/v1beta/models/acme.claude-sonnet-4-6:countTokens', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }],
  ['gemini model list', 'GET', '/api/gemini/v1beta/models', undefined],
  ['anthropic messages', 'POST', '/api/anthropic/v1/messages', { model: 'acme.claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }],
  ['anthropic count_tokens', 'POST', '/api/anthropic/v1/messages/count_tokens', { model: 'acme.claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] }],
  ['anthropic model list', 'GET', '/api/anthropic/v1/models', undefined],
  ['openai model list', 'GET', '/api/openai/v1/models', undefined],
  ['openai model', 'GET', '/api/openai/v1/models/gemini-2.5-flash', undefined],
];

const call = (method: string, path: string, body: unknown, key: string) =>
  fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'x-goog-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

describe.each(ROUTES)('pitfall 14: %s', (_name, method, path, body) => {
  it('accepts x-goog-api-key', async () => {
    const res = await call(method, path, body, TEST_KEY);
    expect(res.status).toBe(200);
  });

  it('refuses a wrong x-goog-api-key with 401 in the family\'s envelope', async () => {
    const res = await call(method, path, body, 'sk-not-a-key');
    expect(res.status).toBe(401);
    const error = await res.json();
    if (path.startsWith('/api/gemini')) expect(error).toEqual({ error: { code: 401, message: 'Invalid API key', status: 'UNAUTHENTICATED' } });
    else if (path.startsWith('/api/anthropic')) expect(error).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'Invalid API key' }, request_id: expect.stringMatching(/^req_/) });
    else expect(error).toEqual({ error: { message: 'Invalid API key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
  });
});
