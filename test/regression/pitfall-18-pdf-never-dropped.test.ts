/**
 * Pitfall 18 (LiteLLM PR #38267, #38251, open #36524; musistudio/llms #68): PDFs (`document`
 * blocks, also inside `tool_result`) were silently dropped or turned into `image` blocks on the
 * bridge; the model answered as if nothing were attached, and the call was still billed. A PDF
 * either reaches the model as a document/file, or the request is refused with a 400 that names
 * the block, before anything is sent upstream.
 */
import Anthropic1 from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

const PDF = 'JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoK';
const COMPLETION = { id: 'c18', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'A report.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 500, completion_tokens: 3, total_tokens: 503 } };
const GEMINI = { candidates: [{ content: { role: 'model', parts: [{ text: 'A report.' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 500, candidatesTokenCount: 3, totalTokenCount: 503 } };

let noFiles: FakeUpstream;
let withFiles: FakeUpstream;
let google: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  noFiles = await startFakeUpstream(() => ({ body: COMPLETION }));
  withFiles = await startFakeUpstream(() => ({ body: COMPLETION }));
  google = await startFakeUpstream(() => ({ body: GEMINI }));
  gateway = await startTestGateway(
    testConfig({
      providers: {
        vllm: { type: 'openai', baseUrl: `${noFiles.url}/v1`, apiKey: 'sk-v' },
        openrouter: { type: 'openai', baseUrl: `${withFiles.url}/v1`, apiKey: 'sk-o', supportsFiles: true },
        google: { type: 'gemini', baseUrl: google.url, apiKey: 'g-key' },
      },
      models: [
        { id: 'qwen3-vl', routes: [{ provider: 'vllm', model: 'Qwen/Qwen3-VL' }] },
        { id: 'gpt-5', routes: [{ provider: 'openrouter', model: 'openai/gpt-5' }] },
        { id: 'gemini-2.5-pro', routes: [{ provider: 'google', model: 'gemini-2.5-pro' }] },
      ],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([noFiles.close(), withFiles.close(), google.close()]);
});
beforeEach(() => {
  noFiles.requests.length = 0;
  withFiles.requests.length = 0;
  google.requests.length = 0;
});

const pdfBlock = { type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: PDF }, title: 'report.pdf' };
const readTool = { name: 'read_pdf', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } };
const CONVERSATIONS = {
  'a document block in the user turn': [{ role: 'user' as const, content: [pdfBlock, { type: 'text' as const, text: 'Summarise this.' }] }],
  'a document inside a tool_result': [
    { role: 'user' as const, content: 'Summarise report.pdf' },
    { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_pdf', name: 'read_pdf', input: { path: 'report.pdf' } }] },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_pdf', content: [{ type: 'text' as const, text: 'Contents:' }, pdfBlock] }] },
  ],
};

describe.each(Object.entries(CONVERSATIONS))('pitfall 18: %s', (_name, messages) => {
  it.each([
    ['1.x', Anthropic1],
    ['0.x', Anthropic0],
  ] as const)('to a host without file support: SDK %s gets a 400 naming the document; nothing is sent upstream', async (_v, Client) => {
    const client = new (Client as typeof Anthropic1)({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
    const err = (await client.messages.create({ model: 'acme.qwen3-vl', max_tokens: 100, tools: [readTool], messages: messages as never }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic1.APIError>;
    expect(err.status).toBe(400);
    expect(err.error).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/^document: this model's host does not accept PDF\/file input/) }, request_id: expect.stringMatching(/^req_/) });
    expect(noFiles.requests).toHaveLength(0);
  });

  it('to a host with file support: the PDF goes as a `file` part, never as an image', async () => {
    const client = new Anthropic1({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
    await client.messages.create({ model: 'acme.gpt-5', max_tokens: 100, tools: [readTool], messages: messages as never });
    const sent = JSON.stringify(withFiles.requests[0]!.json.messages);
    expect(withFiles.requests[0]!.json.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : [])).filter((p: { type: string }) => p.type === 'file')).toEqual([
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: expect.any(String) } },
    ]);
    expect(sent).not.toContain('image_url');
  });

  it('to Gemini: the PDF goes as application/pdf inlineData', async () => {
    const client = new Anthropic1({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
    await client.messages.create({ model: 'acme.gemini-2.5-pro', max_tokens: 100, tools: [readTool], messages: messages as never });
    const parts = google.requests[0]!.json.contents.flatMap((c: { parts: unknown[] }) => c.parts);
    expect(parts.filter((p: { inlineData?: unknown }) => p.inlineData)).toEqual([{ inlineData: { mimeType: 'application/pdf', data: PDF } }]);
  });
});

describe('pitfall 18: a Gemini-style client\'s PDF to a host without file support', () => {
  it('is a 400 in Gemini\'s envelope, not a silent drop', async () => {
    const res = await fetch(`${gateway.url}/api/gemini/v1beta/models/acme.qwen3-vl:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'application/pdf', data: PDF } }, { text: 'Summarise this.' }] }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 400, message: expect.stringMatching(/^document: this model's host does not accept PDF\/file input/), status: 'INVALID_ARGUMENT' } });
    expect(noFiles.requests).toHaveLength(0);
  });
});
