import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, sseChunks, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { loadFixture, loadJsonFixture } from '../helpers/streams.ts';
import { KEEP_OBJECT_BYTES } from '../../core/http/json-body.ts';

/** A model with two routes: an OpenAI-compatible host first, the Anthropic API second (and the reverse). */
let oss: FakeUpstream;
let claude: FakeUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  oss = await startFakeUpstream();
  claude = await startFakeUpstream();
  gateway = await startTestGateway(
    testConfig({
      providers: {
        oss: { type: 'openai', baseUrl: `${oss.url}/v1` },
        claude: { type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant' },
        // The same fake again, as a second Anthropic account.
        claude2: { type: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-2' },
      },
      models: [
        { id: 'oss-first', routes: [{ provider: 'oss', model: 'gpt-oss' }, { provider: 'claude', model: 'claude-up' }] },
        { id: 'claude-first', routes: [{ provider: 'claude', model: 'claude-up' }, { provider: 'oss', model: 'gpt-oss' }] },
        { id: 'claude-twice', routes: [{ provider: 'claude', model: 'claude-up' }, { provider: 'claude2', model: 'claude-two' }] },
      ],
    }),
  );
});
afterAll(async () => {
  await gateway.close();
  await Promise.all([oss.close(), claude.close()]);
});
beforeEach(() => {
  oss.requests.length = 0;
  claude.requests.length = 0;
  oss.reply(() => ({ body: loadJsonFixture('openai/text.json') }));
  claude.reply(() => ({ body: loadJsonFixture('anthropic/upstream-message.json') }));
});

const client = () => new Anthropic({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/anthropic`, maxRetries: 0 });
const ask = (model: string, content: unknown = 'hi') => client().messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: content as string }] });

describe('routes are tried in order until one can answer', () => {
  it('an overloaded first upstream hands the call to the next route', async () => {
    oss.reply(() => ({ status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } }));
    const message = await ask('acme.oss-first');
    expect(message.stop_reason).toBe('tool_use');
    expect([oss.requests.length, claude.requests.length]).toEqual([1, 1]);
    expect(gateway.logs.at(-1)).toMatchObject({ status: 200, provider: 'claude' });
  });

  it('a passthrough that let a long context go hands it on to a translating route, which parses it again', async () => {
    claude.reply(() => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }));
    const long = `café — 日本 🎉 ${'lorem ipsum '.repeat(Math.ceil(KEEP_OBJECT_BYTES / 12))}`;
    await ask('acme.claude-first', long);
    expect(claude.requests[0]!.body.length).toBeGreaterThan(KEEP_OBJECT_BYTES);
    expect(oss.requests[0]!.json.messages).toEqual([{ role: 'user', content: long }]);
  });

  it('a long context passes through to a second account after the first is overloaded: the same bytes, each with its own model', async () => {
    let calls = 0;
    claude.reply(() => (++calls === 1 ? { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } : { body: loadJsonFixture('anthropic/upstream-message.json') }));
    const long = `café — 日本 🎉 ${'lorem ipsum '.repeat(Math.ceil(KEEP_OBJECT_BYTES / 12))}`;
    const message = await ask('acme.claude-twice', long);
    expect(message.type).toBe('message');
    const [first, second] = claude.requests;
    expect(first!.body.length).toBeGreaterThan(KEEP_OBJECT_BYTES);
    expect([first!.json.model, second!.json.model]).toEqual(['claude-up', 'claude-two']);
    expect(second!.body).toBe(first!.body.replace('"claude-up"', '"claude-two"'));
    expect(gateway.logs.at(-1)).toMatchObject({ status: 200, provider: 'claude2' });
  });

  it('a long context bound for a translating route first (parsed at once) passes through to the next route when that one fails', async () => {
    oss.reply(() => ({ status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } }));
    const long = `café — 日本 🎉 ${'lorem ipsum '.repeat(Math.ceil(KEEP_OBJECT_BYTES / 12))}`;
    await ask('acme.oss-first', long);
    expect(oss.requests[0]!.json.messages).toEqual([{ role: 'user', content: long }]);
    expect(claude.requests[0]!.json).toEqual({ model: 'claude-up', max_tokens: 64, messages: [{ role: 'user', content: long }] });
  });

  it('a route that cannot express the request (a PDF to a host without file support) hands it on', async () => {
    const pdf = [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' } }, { type: 'text', text: 'Summarise' }];
    await ask('acme.oss-first', pdf);
    expect(oss.requests).toHaveLength(0);
    expect(claude.requests[0]!.json.messages[0].content[0]).toMatchObject({ type: 'document' });
  });

  it('a client error (400) is not retried elsewhere', async () => {
    claude.reply(() => ({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad request' } } }));
    const err = (await ask('acme.claude-first').catch((e: unknown) => e)) as Error & { status: number };
    expect(err.status).toBe(400);
    expect(oss.requests).toHaveLength(0);
  });

  it('a stream whose first event is an error moves on before anything reaches the client', async () => {
    oss.reply(() => ({ chunks: ['data: {"error":{"message":"Rate limit reached","type":"rate_limit_exceeded","code":"rate_limit_exceeded"}}\n\n'] }));
    claude.reply(() => ({ chunks: sseChunks(loadFixture('anthropic/upstream-thinking-tool.sse')) }));
    const final = await client().messages.stream({ model: 'acme.oss-first', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect([oss.requests.length, claude.requests.length]).toEqual([1, 1]);
  });

  it('when every route fails, the client gets the first route\'s error', async () => {
    oss.reply(() => ({ status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'slow down', type: 'rate_limit_exceeded' } } }));
    claude.reply(() => ({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }));
    const err = (await ask('acme.oss-first').catch((e: unknown) => e)) as Error & { status: number };
    expect(err.status).toBe(429);
    expect([oss.requests.length, claude.requests.length]).toEqual([1, 1]);
  });
});
