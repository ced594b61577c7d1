/** @see https://ai.google.dev/api */
import { TemplateCache } from '../../http/template-cache.ts';
import type { Upstream } from '../types.ts';
import type { GeminiChunkTemplate } from './chunk-template.ts';
import type { GeminiProviderConfig } from './endpoint.ts';
import { readGeminiError } from './read-error.ts';
import { readGeminiResponse } from './read-response.ts';
import { readGeminiStream } from './read-stream.ts';
import { countGeminiTokens } from './write-count-tokens.ts';
import { writeGeminiPassthrough } from './write-passthrough.ts';
import { writeGeminiRequest } from './write-request.ts';

/** The Google AI Studio (Gemini API) upstream: translated calls, the Gemini-family fast path and countTokens. */
export function createGeminiUpstream(name: string, config: GeminiProviderConfig): Upstream {
  const errors = { provider: name, apiKey: config.apiKey };
  const templates = new TemplateCache<GeminiChunkTemplate>();
  return {
    kind: 'gemini',
    writeRequest: (req, target, warn) => writeGeminiRequest(Object.assign({}, req, { model: target.upstreamModel }), config, warn),
    readResponse: (body, req) => readGeminiResponse(body, req),
    readStream: (req) => readGeminiStream({ provider: name, apiKey: config.apiKey, model: req.model, templates, webSearch: req.webSearch }),
    readError: (res) => readGeminiError(res, errors),
    countTokens: (req, target, send) => countGeminiTokens(Object.assign({}, req, { model: target.upstreamModel }), config, name, send),
    passthrough: {
      family: 'gemini',
      writeRequest: (call) => writeGeminiPassthrough(call, config),
    },
  };
}
