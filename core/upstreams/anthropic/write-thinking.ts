/** @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking */
import type { ReasoningEffort, ThinkingConfig } from '../../ir.ts';
import type { Warn } from '../types.ts';
import type { AnthropicEffort, AnthropicMessagesBody } from './wire-types.ts';

const MIN_BUDGET = 1024;
/** Used only when a client asked for manual thinking without a budget (e.g. an effort level). */
const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 32000 };

/**
 * Sets `thinking` (and `output_config.effort` for adaptive thinking) on the body; with manual
 * thinking keeps 1024 ≤ budget_tokens < max_tokens, raising max_tokens when needed (with a
 * warning: never clamped silently). Returns whether thinking is on.
 */
export function writeAnthropicThinking(thinking: ThinkingConfig | undefined, body: AnthropicMessagesBody, warn: Warn): boolean {
  if (!thinking) return false;
  const display = thinking.display ? { display: thinking.display } : {};
  switch (thinking.mode) {
    case 'disabled':
      body.thinking = { type: 'disabled' };
      return false;
    case 'adaptive':
      body.thinking = { type: 'adaptive', ...display };
      if (thinking.effort) body.output_config = { ...body.output_config, effort: writeEffort(thinking.effort, warn) };
      return true;
    case 'enabled': {
      let budget = thinking.budgetTokens;
      if (budget === undefined) {
        budget = BUDGET_BY_EFFORT[thinking.effort ?? 'medium'];
        warn(`thinking.budget_tokens not given; sent ${budget}`);
      }
      if (budget < MIN_BUDGET) {
        warn(`thinking.budget_tokens raised from ${budget} to ${MIN_BUDGET} (Anthropic's minimum)`);
        budget = MIN_BUDGET;
      }
      if (budget >= body.max_tokens) {
        const raised = budget + Math.max(body.max_tokens, 1);
        warn(`max_tokens raised from ${body.max_tokens} to ${raised}: it must exceed thinking.budget_tokens (${budget})`);
        body.max_tokens = raised;
      }
      body.thinking = { type: 'enabled', budget_tokens: budget, ...display };
      return true;
    }
  }
}

function writeEffort(effort: ReasoningEffort, warn: Warn): AnthropicEffort {
  if (effort !== 'minimal') return effort;
  warn('reasoning effort "minimal" sent as "low" (the lowest Anthropic effort)');
  return 'low';
}
