/** @see https://docs.anthropic.com/en/api/messages */
import type { ChatRequest } from '../../ir.ts';
import type { UpstreamRequest, Warn } from '../types.ts';
import { writeAnthropicBody } from './write-body.ts';
import { anthropicUrl, writeAnthropicHeaders } from './write-headers.ts';
import type { AnthropicConfig } from './wire-types.ts';

/** Translated path: any family's ChatRequest → POST {baseUrl}/v1/messages. */
export function writeAnthropicRequest(req: ChatRequest, config: AnthropicConfig, warn: Warn): UpstreamRequest {
  const body = { model: req.model, ...writeAnthropicBody(req, { warn, version: config.version }), ...(req.stream ? { stream: true } : {}) };
  return {
    url: anthropicUrl(config, '/v1/messages'),
    headers: writeAnthropicHeaders(config, config.version, writeBetas(req)),
    body: JSON.stringify(body),
  };
}

/** Betas only make sense when a Claude-style client chose them. */
export function writeBetas(req: ChatRequest): string | undefined {
  return req.source.family === 'anthropic' && req.source.betas?.length ? req.source.betas.join(',') : undefined;
}
