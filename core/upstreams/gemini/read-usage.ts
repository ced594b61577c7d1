/** @see https://ai.google.dev/api/generate-content#UsageMetadata */
import type { Usage } from '../../ir.ts';
import type { GeminiUsageMetadata } from './wire-types.ts';

/**
 * usageMetadata → Usage. Gemini's prompt count includes cached tokens (ours excludes them), its
 * candidates count excludes thoughts (ours includes them, as every family bills them as output).
 * Tool-use prompt tokens (built-in tools) are billed input, so they count as input.
 */
export function readGeminiUsage(meta: GeminiUsageMetadata | undefined): Usage {
  const cached = meta?.cachedContentTokenCount;
  const thoughts = meta?.thoughtsTokenCount;
  const input = (meta?.promptTokenCount ?? 0) - (cached ?? 0) + (meta?.toolUsePromptTokenCount ?? 0);
  return {
    inputTokens: Math.max(0, input),
    outputTokens: (meta?.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    ...(cached !== undefined ? { cacheReadTokens: cached } : {}),
    ...(thoughts !== undefined ? { reasoningTokens: thoughts } : {}),
  };
}
