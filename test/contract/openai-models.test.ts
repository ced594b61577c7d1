import OpenAI, { AuthenticationError, NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';

const config = testConfig({
  providers: { claude: { type: 'anthropic', apiKey: 'upstream-key', baseUrl: 'http://127.0.0.1:9' }, oss: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } },
  models: [
    { id: 'claude-sonnet-4-5-20250929-v1', created: 1759104000, routes: [{ provider: 'claude', model: 'claude-sonnet-4-5-20250929' }] },
    { id: 'gpt-oss-120b', created: 1754352000, routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
  ],
});

describe('openai SDK against the listing family', () => {
  let gateway: RunningGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway(config);
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/api/openai/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.close());

  it('models.list() returns every configured model in the one-api shape', async () => {
    const page = await client.models.list();
    expect(page.data).toEqual([
      { id: 'claude-sonnet-4-5-20250929-v1', object: 'model', created: 1759104000, owned_by: 'acme', permission: [], root: 'claude-sonnet-4-5-20250929-v1', parent: null },
      { id: 'gpt-oss-120b', object: 'model', created: 1754352000, owned_by: 'acme', permission: [], root: 'gpt-oss-120b', parent: null },
    ]);
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['claude-sonnet-4-5-20250929-v1', 'gpt-oss-120b']);
  });

  it('models.retrieve() returns one model', async () => {
    const model = await client.models.retrieve('gpt-oss-120b');
    expect(model).toMatchObject({ id: 'gpt-oss-120b', object: 'model', owned_by: 'acme', root: 'gpt-oss-120b', parent: null });
    // The prefixed name used in generate and messages calls finds the same model.
    expect(await client.models.retrieve('acme.gpt-oss-120b')).toEqual(model);
  });

  it('an unknown model is a NotFoundError naming it', async () => {
    const err = await client.models.retrieve('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).error).toMatchObject({ type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
    expect((err as NotFoundError).code).toBe('model_not_found');
    expect((err as NotFoundError).message).toContain('nope');
  });

  it('a wrong key is an AuthenticationError, with the request id the SDK reports', async () => {
    const bad = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${gateway.url}/api/openai/v1`, maxRetries: 0 });
    const err = (await bad.models.list().catch((e: unknown) => e)) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.requestID).toMatch(/^req_/);
  });

  it('the key never appears in the access log', () => {
    expect(JSON.stringify(gateway.logs)).not.toContain(TEST_KEY);
    expect(gateway.logs.some((l) => l.key === 'test' && l.path === '/api/openai/v1/models')).toBe(true);
  });
});
