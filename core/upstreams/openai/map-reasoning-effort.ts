/** @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort */
import type { ReasoningEffort, ThinkingConfig } from '../../ir.ts';

export type OpenAIReasoningEffort = 'low' | 'medium' | 'high';

/**
 * IR thinking → `reasoning_effort`. Open-weight hosts (gpt-oss on vLLM, Groq, OpenRouter…)
 * accept only low/medium/high, so everything is mapped onto those three:
 *
 * | IR thinking                          | reasoning_effort |
 * |--------------------------------------|------------------|
 * | disabled, or absent                  | (omitted)        |
 * | enabled, budgetTokens ≤ 2048         | low              |
 * | enabled, budgetTokens ≤ 8192         | medium           |
 * | enabled, budgetTokens > 8192         | high             |
 * | enabled without budget or effort     | medium           |
 * | effort minimal / low                 | low              |
 * | effort medium                        | medium           |
 * | effort high / xhigh / max            | high             |
 * | adaptive without effort              | (omitted: the host's default) |
 *
 * An explicit effort wins over a budget. `exact` is false when the value was rounded, so the
 * caller can report what was applied.
 */
export function mapOpenAIReasoningEffort(thinking: ThinkingConfig | undefined): { effort: OpenAIReasoningEffort; exact: boolean } | undefined {
  if (!thinking || thinking.mode === 'disabled') return undefined;
  if (thinking.effort) return { effort: EFFORT[thinking.effort], exact: EFFORT[thinking.effort] === thinking.effort };
  if (thinking.mode === 'adaptive') return undefined;
  const budget = thinking.budgetTokens;
  if (budget === undefined) return { effort: 'medium', exact: false };
  return { effort: budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high', exact: false };
}

const EFFORT: Record<ReasoningEffort, OpenAIReasoningEffort> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
};
