/** @see https://docs.anthropic.com/en/api/messages#response-usage */
import { completeUsage, type Usage } from '../../ir.ts';
import type { AnthropicUsage } from './wire-types.ts';

const num = (v: unknown): v is number => typeof v === 'number';

/** Only the fields the upstream reported (null and missing stay absent). */
export function readAnthropicPartialUsage(usage: AnthropicUsage | null | undefined): Partial<Usage> {
  const out: Partial<Usage> = {};
  if (!usage) return out;
  if (num(usage.input_tokens)) out.inputTokens = usage.input_tokens;
  if (num(usage.output_tokens)) out.outputTokens = usage.output_tokens;
  if (num(usage.cache_read_input_tokens)) out.cacheReadTokens = usage.cache_read_input_tokens;
  if (num(usage.cache_creation_input_tokens)) out.cacheWriteTokens = usage.cache_creation_input_tokens;
  const thinking = usage.output_tokens_details?.thinking_tokens;
  if (num(thinking)) out.reasoningTokens = thinking;
  return out;
}

export function readAnthropicUsage(usage: AnthropicUsage | null | undefined): Usage {
  return completeUsage(readAnthropicPartialUsage(usage));
}
