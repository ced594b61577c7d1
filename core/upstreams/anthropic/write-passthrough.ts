/** @see https://docs.anthropic.com/en/api/messages */
import { GatewayError } from '../../errors.ts';
import type { PassthroughCall, UpstreamRequest } from '../types.ts';
import { anthropicUrl, writeAnthropicHeaders } from './write-headers.ts';
import type { AnthropicConfig } from './wire-types.ts';

/**
 * Same-family fast path: the client's body with only `model` rewritten. Of the client's headers
 * only anthropic-version and anthropic-beta travel (Claude Code's context_management needs its
 * beta); its credentials are replaced by the gateway's.
 */
export function writeAnthropicPassthrough(call: PassthroughCall, config: AnthropicConfig): UpstreamRequest {
  if (call.action !== 'messages' && call.action !== 'count_tokens') {
    throw new GatewayError('internal', `Anthropic upstream cannot pass through "${call.action}"`);
  }
  const path = call.action === 'messages' ? '/v1/messages' : '/v1/messages/count_tokens';
  const version = call.headers.get('anthropic-version') || config.version;
  const beta = call.headers.get('anthropic-beta') ?? undefined;
  return {
    url: anthropicUrl(config, path),
    headers: writeAnthropicHeaders(config, version, beta),
    body: JSON.stringify({ ...call.body, model: call.target.upstreamModel }),
  };
}
