/** @see https://ai.google.dev/api/generate-content#UsageMetadata */
import type { Usage } from '../../ir.ts';

export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/**
 * Gemini's prompt count includes cached tokens (cache writes have no field of their own, so they
 * count as prompt), and its candidates count excludes thoughts, which the IR keeps inside output.
 */
export function writeGeminiUsage(usage: Usage): GeminiUsageMetadata {
  const cached = usage.cacheReadTokens ?? 0;
  const prompt = usage.inputTokens + cached + (usage.cacheWriteTokens ?? 0);
  const thoughts = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const out: GeminiUsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: usage.outputTokens - thoughts,
    totalTokenCount: prompt + usage.outputTokens,
  };
  if (cached > 0) out.cachedContentTokenCount = cached;
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  return out;
}
