/** @see https://docs.anthropic.com/en/api/versioning */
import { readFixedConfig } from '../fixed-config.ts';
import type { AnthropicConfig } from './wire-types.ts';

/** `{baseUrl}{path}`; the base URL has no /v1 (like the SDK's) and may carry a path prefix. */
export function anthropicUrl(config: AnthropicConfig, path: '/v1/messages' | '/v1/messages/count_tokens'): string {
  return readFixedConfig(config).base + path;
}

/**
 * The gateway's own credentials and the operator's extra headers; a client's key never goes
 * upstream. Operator headers come last so a deployment can override anything.
 */
export function writeAnthropicHeaders(config: AnthropicConfig, version: string, beta?: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': config.apiKey, 'anthropic-version': version };
  if (beta) headers['anthropic-beta'] = beta;
  for (const [name, value] of readFixedConfig(config).headers) headers[name] = value;
  return headers;
}
