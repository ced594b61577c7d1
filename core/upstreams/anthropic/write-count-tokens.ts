/** @see https://docs.anthropic.com/en/api/messages-count-tokens */
import type { ChatRequest } from '../../ir.ts';
import type { UpstreamRequest, Warn } from '../types.ts';
import { writeAnthropicBody } from './write-body.ts';
import { anthropicUrl, writeAnthropicHeaders } from './write-headers.ts';
import { writeBetas } from './write-request.ts';
import type { AnthropicConfig } from './wire-types.ts';

/** The fields count_tokens accepts; max_tokens, stream, stop_sequences, metadata and sampling are refused there. */
const COUNTED = ['messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'cache_control', 'speed', 'context_management', 'mcp_servers'];

export function writeAnthropicCountTokens(req: ChatRequest, config: AnthropicConfig, warn: Warn): UpstreamRequest {
  const full: Record<string, unknown> = writeAnthropicBody(req, { warn, version: config.version });
  const body: Record<string, unknown> = { model: req.model };
  for (const key of COUNTED) if (full[key] !== undefined) body[key] = full[key];
  return {
    url: anthropicUrl(config, '/v1/messages/count_tokens'),
    headers: writeAnthropicHeaders(config, config.version, writeBetas(req)),
    body: JSON.stringify(body),
  };
}
