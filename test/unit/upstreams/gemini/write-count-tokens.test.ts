import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../core/ir.ts';
import { createGeminiUpstream } from '../../../../core/upstreams/gemini/index.ts';
import type { GeminiProviderConfig } from '../../../../core/upstreams/gemini/endpoint.ts';
import type { UpstreamRequest } from '../../../../core/upstreams/types.ts';

const config: GeminiProviderConfig = { type: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com', apiKey: 'AIzaTEST', apiVersion: 'v1beta' };
const target = { provider: 'google', config, upstreamModel: 'gemini-2.5-flash' };
const req: ChatRequest = {
  model: 'client-alias',
  system: [{ type: 'text', text: 'Be brief.' }],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
  tools: [{ type: 'function', name: 'f', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } }],
  maxTokens: 100,
  stream: true,
  source: { family: 'anthropic', extra: {} },
};

describe('countTokens', () => {
  it('counts with a generateContentRequest holding contents, system and tools', async () => {
    const sent: UpstreamRequest[] = [];
    const upstream = createGeminiUpstream('google', config);
    const total = await upstream.countTokens!(req, target, async (r) => {
      sent.push(r);
      return Response.json({ totalTokens: 31, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 31 }] });
    });
    expect(total).toBe(31);
    expect(sent.map((r) => ({ ...r, body: JSON.parse(r.body as string) }))).toEqual([
      {
        url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:countTokens',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'AIzaTEST' },
        body: {
          generateContentRequest: {
            model: 'models/gemini-2.5-flash',
            contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
            systemInstruction: { parts: [{ text: 'Be brief.' }] },
            tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } }] }],
          },
        },
      },
    ]);
  });

  it('reads an omitted totalTokens as 0 and maps upstream errors', async () => {
    const upstream = createGeminiUpstream('google', config);
    expect(await upstream.countTokens!(req, target, async () => Response.json({}))).toBe(0);
    const failing = upstream.countTokens!(req, target, async () => Response.json({ error: { code: 404, message: 'models/x is not found', status: 'NOT_FOUND' } }, { status: 404 }));
    await expect(failing).rejects.toMatchObject({ kind: 'not_found', status: 404, message: 'models/x is not found' });
  });
});
