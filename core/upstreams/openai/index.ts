/** @see https://platform.openai.com/docs/api-reference/chat */
import { TemplateCache } from '../../http/template-cache.ts';
import type { Upstream } from '../types.ts';
import type { ChunkTemplate } from './chunk-template.ts';
import { readOpenAIError } from './read-error.ts';
import { readOpenAIResponse } from './read-response.ts';
import { readOpenAIStream } from './read-stream.ts';
import type { OpenAIProviderConfig } from './types.ts';
import { writeOpenAIRequest } from './write-request.ts';

/**
 * An OpenAI-compatible chat completions host (vLLM, Groq, OpenRouter, llama.cpp, DeepSeek…).
 * No passthrough (no client family speaks chat completions to it verbatim yet) and no token
 * counter: chat completions has none.
 */
export function createOpenAIUpstream(name: string, config: OpenAIProviderConfig): Upstream {
  const templates = new TemplateCache<ChunkTemplate>();
  return {
    kind: 'openai',
    writeRequest: (req, _target, warn) => writeOpenAIRequest(req, name, config, warn),
    readResponse: (body, req) => readOpenAIResponse(body, req, name),
    readStream: (req) => readOpenAIStream(req, name, templates),
    readError: (res) => readOpenAIError(res, name),
  };
}
