/** @see https://ai.google.dev/api/generate-content */
import { GatewayError } from '../../errors.ts';
import type { PassthroughCall, UpstreamRequest } from '../types.ts';
import { geminiHeaders, geminiModelPath, geminiUrl, type GeminiProviderConfig } from './endpoint.ts';

/**
 * Same-family fast path: the client's Gemini body goes upstream unchanged (the model lives in
 * the URL), with the gateway's key instead of the client's. A streaming call keeps its framing:
 * `alt=sse` only when the client asked for SSE, otherwise Gemini's JSON-array stream.
 */
export function writeGeminiPassthrough(call: PassthroughCall, config: GeminiProviderConfig): UpstreamRequest {
  const { action } = call;
  if (action !== 'generateContent' && action !== 'streamGenerateContent' && action !== 'countTokens') {
    throw new GatewayError('internal', `The Gemini upstream cannot pass through a "${action}" call`);
  }
  const model = call.target.upstreamModel;
  const { source } = call;
  // The client's own bytes where they are exactly its text: nothing is encoded again.
  let body: string | Uint8Array = source.exactBytes ?? source.text;
  // countTokens may name the model again inside; it must be the upstream's, not the client's alias.
  if (action === 'countTokens') {
    const inner = source.object.generateContentRequest;
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      body = JSON.stringify({ ...source.object, generateContentRequest: { ...inner, model: geminiModelPath(model) } });
    }
  }
  return {
    url: geminiUrl(config, model, action, action === 'streamGenerateContent' && call.stream),
    headers: geminiHeaders(config),
    body,
  };
}
