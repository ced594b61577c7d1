import { describe, expect, it } from 'vitest';
import { createGateway } from '../../../core/index.ts';

/** The README's embedding example, run as written: a host app that hands /llm/* to Switchyard. */
describe('embedding createGateway in another app', () => {
  const switchyard = createGateway(
    {
      basePath: '/llm',
      keys: [{ id: 'app', key: 'sk-embedded-app' }],
      providers: { oss: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } },
      models: [{ id: 'gpt-oss-20b', created: 1754352000, routes: [{ provider: 'oss', model: 'openai/gpt-oss-20b' }] }],
    },
    { log: () => {} },
  );
  const app = {
    fetch(request: Request): Promise<Response> | Response {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith('/llm/')) return switchyard.fetch(request);
      return new Response(`host app: ${pathname}`);
    },
  };

  it('serves the host app and Switchyard side by side', async () => {
    expect(await (await app.fetch(new Request('http://app.test/home'))).text()).toBe('host app: /home');
    const res = await app.fetch(new Request('http://app.test/llm/api/openai/v1/models', { headers: { authorization: 'Bearer sk-embedded-app' } }));
    expect(res.status).toBe(200);
    expect((await res.json()).data[0]).toMatchObject({ id: 'gpt-oss-20b', owned_by: 'switchyard' });
    expect((await app.fetch(new Request('http://app.test/llm/healthz'))).status).toBe(200);
  });

  it('answers unknown paths under the mount in the family envelope', async () => {
    const res = await app.fetch(new Request('http://app.test/llm/api/anthropic/v1/nope', { headers: { 'x-api-key': 'sk-embedded-app' } }));
    expect(res.status).toBe(404);
    expect((await res.json()).type).toBe('error');
  });
});
