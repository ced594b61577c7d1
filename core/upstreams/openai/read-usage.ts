/** @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage */
import type { Usage } from '../../ir.ts';
import type { OpenAIUsage } from './types.ts';

/**
 * `prompt_tokens` includes cached tokens while the IR's `inputTokens` does not (Anthropic's
 * convention), so cache reads and writes are subtracted. DeepSeek reports cache hits as
 * `prompt_cache_hit_tokens` instead of `prompt_tokens_details.cached_tokens`.
 */
export function readOpenAIUsage(usage: OpenAIUsage | null | undefined): Usage {
  const prompt = num(usage?.prompt_tokens) ?? 0;
  const cacheRead = num(usage?.prompt_tokens_details?.cached_tokens) ?? num(usage?.prompt_cache_hit_tokens);
  const cacheWrite = num(usage?.prompt_tokens_details?.cache_write_tokens);
  const reasoning = num(usage?.completion_tokens_details?.reasoning_tokens);
  const out: Usage = {
    inputTokens: Math.max(0, prompt - (cacheRead ?? 0) - (cacheWrite ?? 0)),
    outputTokens: num(usage?.completion_tokens) ?? 0,
  };
  if (cacheRead !== undefined) out.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) out.cacheWriteTokens = cacheWrite;
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  return out;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
