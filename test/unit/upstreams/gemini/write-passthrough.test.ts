import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../../../../core/errors.ts';
import type { GeminiProviderConfig } from '../../../../core/upstreams/gemini/endpoint.ts';
import { writeGeminiPassthrough } from '../../../../core/upstreams/gemini/write-passthrough.ts';
import type { PassthroughCall } from '../../../../core/upstreams/types.ts';
import { bodyText, jsonBody } from '../../../helpers/json-body.ts';

const config: GeminiProviderConfig = { type: 'gemini', baseUrl: 'http://127.0.0.1:9000/gw/', apiKey: 'AIzaGATEWAY', apiVersion: 'v1beta', headers: { 'X-Team': 'a' } };
const target = { provider: 'google', config, upstreamModel: 'gemini-2.5-flash' };
const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { temperature: 0.2 }, labels: { team: 'x' } };

function call(over: Partial<PassthroughCall>): PassthroughCall {
  return { target, source: jsonBody(body), headers: new Headers({ 'x-goog-api-key': 'sy-client-key' }), action: 'generateContent', stream: false, ...over };
}

describe('writeGeminiPassthrough', () => {
  it('sends the client body unchanged with the gateway key', () => {
    const wire = writeGeminiPassthrough(call({}), config);
    expect({ ...wire, body: JSON.parse(bodyText(wire.body)) }).toEqual({
      url: 'http://127.0.0.1:9000/gw/v1beta/models/gemini-2.5-flash:generateContent',
      headers: { 'x-team': 'a', 'content-type': 'application/json', 'x-goog-api-key': 'AIzaGATEWAY' },
      body,
    });
  });

  it('asks for SSE only when the client did, otherwise keeps the JSON-array stream', () => {
    expect([
      writeGeminiPassthrough(call({ action: 'streamGenerateContent', stream: true }), config).url,
      writeGeminiPassthrough(call({ action: 'streamGenerateContent', stream: false }), config).url,
    ]).toEqual([
      'http://127.0.0.1:9000/gw/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      'http://127.0.0.1:9000/gw/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    ]);
  });

  it('rewrites the model named inside a countTokens generateContentRequest', () => {
    const count = { generateContentRequest: { model: 'models/acme.gemini-fast', contents: body.contents } };
    const wire = writeGeminiPassthrough(call({ action: 'countTokens', source: jsonBody(count) }), config);
    expect({ url: wire.url, body: JSON.parse(bodyText(wire.body)) }).toEqual({
      url: 'http://127.0.0.1:9000/gw/v1beta/models/gemini-2.5-flash:countTokens',
      body: { generateContentRequest: { model: 'models/gemini-2.5-flash', contents: body.contents } },
    });
    expect(JSON.parse(bodyText(writeGeminiPassthrough(call({ action: 'countTokens', source: jsonBody({ contents: [] }) }), config).body))).toEqual({ contents: [] });
  });

  it('keeps tuned model paths and refuses other families\' actions', () => {
    const tuned = { ...target, upstreamModel: 'tunedModels/my-model-123' };
    expect(writeGeminiPassthrough(call({ target: tuned }), config).url).toBe('http://127.0.0.1:9000/gw/v1beta/tunedModels/my-model-123:generateContent');
    try {
      writeGeminiPassthrough(call({ action: 'messages' }), config);
      expect.unreachable();
    } catch (err) {
      expect((err as GatewayError).kind).toBe('internal');
    }
  });
});
